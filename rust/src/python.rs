//! The Python face (`coworld._core`). It converts types and maps errors; every
//! rule it exposes lives in the plain-Rust modules.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::Value;

use crate::error::CoreError;
use crate::game::Ending;
use crate::registry::{State, GAMES};
use crate::simulate::Batch;

pyo3::import_exception!(coworld.errors, IllegalMove);
pyo3::import_exception!(coworld.errors, ConfigError);

pub(crate) fn to_pyerr(e: CoreError) -> PyErr {
    let message = e.to_string();
    match e {
        CoreError::Move {
            fault,
            text,
            legal,
            reason,
        } => IllegalMove::new_err((message, fault.name(), text, legal, reason)),
        CoreError::Config { field, .. } => ConfigError::new_err((message, field)),
    }
}

pub(crate) fn parse_config(config: Option<&str>) -> PyResult<Value> {
    match config {
        None => Ok(Value::Null),
        Some(text) => serde_json::from_str(text)
            .map_err(|e| PyValueError::new_err(format!("config is not JSON: {e}"))),
    }
}

/// serde_json -> Python objects.
fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => PyList::new(
            py,
            items
                .iter()
                .map(|x| to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?,
        )?
        .into_any(),
        Value::Object(map) => {
            let d = PyDict::new(py);
            for (k, x) in map {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// An immutable game state; `apply` returns a new one.
#[pyclass(frozen, module = "coworld._core", name = "State")]
#[derive(Clone)]
pub(crate) struct PyState(pub(crate) State);

#[pymethods]
impl PyState {
    #[new]
    #[pyo3(signature = (game, config=None, seed=0))]
    fn new(game: &str, config: Option<&str>, seed: i64) -> PyResult<Self> {
        State::new(game, &parse_config(config)?, seed)
            .map(PyState)
            .map_err(to_pyerr)
    }

    /// Rebuild a state from its recorded config, seed, moves and guesses (used by pickle).
    #[staticmethod]
    #[pyo3(signature = (game, config, seed, moves, guesses=None))]
    fn replay(
        game: &str,
        config: Option<&str>,
        seed: i64,
        moves: Vec<String>,
        guesses: Option<Vec<(usize, Vec<String>)>>,
    ) -> PyResult<Self> {
        State::replay(
            game,
            &parse_config(config)?,
            seed,
            &moves,
            &guesses.unwrap_or_default(),
        )
        .map(PyState)
        .map_err(to_pyerr)
    }

    #[getter]
    fn game(&self) -> &'static str {
        self.0.requested
    }
    #[getter]
    fn resolved_game(&self) -> &'static str {
        self.0.game_id()
    }
    #[getter]
    fn seed(&self) -> i64 {
        self.0.seed
    }
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.0.config)
    }
    #[getter]
    fn config_json(&self) -> String {
        self.0.config.to_string()
    }
    #[getter]
    fn num_seats(&self) -> usize {
        self.0.num_seats()
    }
    #[getter]
    fn active_seat(&self) -> Option<usize> {
        self.0.active_seat()
    }
    #[getter]
    fn is_terminal(&self) -> bool {
        self.0.is_terminal()
    }
    #[getter]
    fn plies(&self) -> u32 {
        self.0.plies()
    }
    #[getter]
    fn moves(&self) -> Vec<String> {
        self.0.moves.clone()
    }
    #[getter]
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.0.results() {
            Some(r) => to_py(py, &r),
            None => Ok(py.None().into_bound(py)),
        }
    }
    #[getter]
    fn policy_names(&self) -> Vec<&'static str> {
        self.0.policy_names().to_vec()
    }

    fn legal_moves(&self) -> Vec<String> {
        self.0.legal_moves()
    }
    fn read_move(&self, text: &str) -> PyResult<String> {
        self.0.read_move(text).map_err(to_pyerr)
    }
    fn apply(&self, text: &str) -> PyResult<Self> {
        let mut next = self.0.clone();
        next.apply(text).map_err(to_pyerr)?;
        Ok(PyState(next))
    }
    /// The state with the active seat's guess recorded for the coming ply
    /// (fog; a no-op elsewhere). Malformed cells are dropped, never rejected.
    fn with_guess(&self, cells: Vec<String>) -> PyResult<Self> {
        let mut next = self.0.clone();
        next.record_guess(&cells).map_err(to_pyerr)?;
        Ok(PyState(next))
    }
    fn settle_deadline(&self) -> Self {
        let mut next = self.0.clone();
        next.settle_deadline();
        PyState(next)
    }
    fn view<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.0.view())
    }
    fn view_for<'py>(&self, py: Python<'py>, seat: usize) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.0.view_for(seat).map_err(to_pyerr)?)
    }
    fn standing(&self, seat: usize) -> PyResult<Option<i32>> {
        self.0.standing(seat).map_err(to_pyerr)
    }
    fn baseline_move(&self, name: &str) -> PyResult<String> {
        self.0.baseline_move(name).map_err(to_pyerr)
    }
    /// The next opening ply (a random legal move drawn from the seed's opening
    /// stream), or None once the game is over.
    fn opening_move(&self) -> Option<String> {
        self.0.opening_move()
    }
    /// Raise `ConfigError` unless `name` (parameters included) is a baseline here.
    fn check_baseline(&self, name: &str) -> PyResult<()> {
        self.0.check_baseline(name).map_err(to_pyerr)
    }

    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(
        Bound<'py, PyAny>,
        (String, String, i64, Vec<String>, Vec<(usize, Vec<String>)>),
    )> {
        let s = &slf.get().0;
        let ctor = slf.get_type().getattr("replay")?;
        let config = s.settings.to_string();
        Ok((
            ctor,
            (
                s.requested.to_string(),
                config,
                s.seed,
                s.moves.clone(),
                s.guesses.clone(),
            ),
        ))
    }

    fn __repr__(&self) -> String {
        let s = &self.0;
        let status = match s.active_seat() {
            Some(seat) => format!("seat {seat} to move"),
            None => "settled".into(),
        };
        format!(
            "<coworld State {} seed={} plies={} {status}>",
            s.game_id(),
            s.seed,
            s.plies()
        )
    }
}

/// Run `episodes` whole episodes with the GIL released; returns a dict of numpy arrays.
#[pyfunction]
#[pyo3(signature = (game, policies, episodes, seed, threads=None, config=None, start=0, openings=0))]
#[allow(clippy::too_many_arguments)] // the Python signature, keyword arguments included
fn simulate<'py>(
    py: Python<'py>,
    game: &str,
    policies: Vec<String>,
    episodes: u64,
    seed: i64,
    threads: Option<usize>,
    config: Option<&str>,
    start: u64,
    openings: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let batch = Batch {
        game: game.into(),
        config: parse_config(config)?,
        policies,
        start,
        episodes,
        seed,
        openings,
    };
    let columns = py.detach(|| batch.run_columns(threads)).map_err(to_pyerr)?;
    // Each column becomes its array without a copy.
    let (rows, seats) = (columns.len(), columns.seats);
    let out = PyDict::new(py);
    out.set_item(
        "score",
        PyArray1::from_vec(py, columns.score).reshape([rows, seats])?,
    )?;
    out.set_item("plies", PyArray1::from_vec(py, columns.plies))?;
    out.set_item("ending", PyArray1::from_vec(py, columns.ending))?;
    out.set_item("game", PyArray1::from_vec(py, columns.game))?;
    out.set_item("seed", PyArray1::from_vec(py, columns.seed))?;
    Ok(out)
}

/// The game catalogue: `{"games": {id: entry}, "order": [...], "rotation": [...]}`.
#[pyfunction]
fn catalog(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    to_py(py, &crate::catalog::to_json())
}

/// One word of a Hanabi reply's field in canonical form (`kind`: action, number,
/// hintType, colour or rank), or None when the reader does not know it.
#[pyfunction]
fn hanabi_word(kind: &str, text: &str) -> Option<String> {
    crate::hanabi::reader::read_word(kind, text)
}

/// A fresh seed in 1..=2^53-1, as seed 0 draws everywhere.
#[pyfunction]
fn draw_seed() -> i64 {
    crate::rng::resolve_seed(0)
}

/// The parameter keys of baseline `baseline` of `game`, `eps` first.
#[pyfunction]
fn baseline_param_keys(game: &str, baseline: &str) -> PyResult<Vec<&'static str>> {
    crate::registry::baseline_param_keys(game, baseline).map_err(to_pyerr)
}

/// The seed of episode `index` of a batch started from `base` (what `simulate` uses).
#[pyfunction]
fn episode_seed(base: i64, index: u64) -> i64 {
    crate::rng::episode_seed(base, index)
}

#[pymodule]
#[pyo3(name = "_core")]
fn core_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyState>()?;
    m.add_class::<crate::python_vecenv::PyVecEnv>()?;
    m.add_function(wrap_pyfunction!(crate::python_vecenv::encode, m)?)?;
    m.add_function(wrap_pyfunction!(crate::python_vecenv::action_names, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(hanabi_word, m)?)?;
    m.add_function(wrap_pyfunction!(draw_seed, m)?)?;
    m.add_function(wrap_pyfunction!(episode_seed, m)?)?;
    m.add_function(wrap_pyfunction!(baseline_param_keys, m)?)?;
    m.add("GAMES", GAMES.to_vec())?;
    m.add(
        "ENDINGS",
        Ending::ALL.iter().map(|e| e.name()).collect::<Vec<_>>(),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
