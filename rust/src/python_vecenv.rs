//! The Python face of the batched environment (`coworld._core.VecEnv`): numpy
//! buffers allocated once and written in place by [`crate::vecenv`] with the
//! GIL released. It converts and maps errors; nothing else.

use numpy::{
    PyArray1, PyArray2, PyArrayDyn, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use crate::python::{parse_config, to_pyerr, PyState};
use crate::vecenv::{self, Buffers};

/// n episodes of one game stepped in lockstep; see `coworld.VecEnv`.
#[pyclass(module = "coworld._core", name = "VecEnv")]
pub struct PyVecEnv {
    env: vecenv::VecEnv,
    #[pyo3(get)]
    obs: Py<PyArrayDyn<f32>>,
    #[pyo3(get)]
    mask: Py<PyArray2<bool>>,
    #[pyo3(get)]
    rewards: Py<PyArray2<f32>>,
    #[pyo3(get)]
    terminated: Py<PyArray1<bool>>,
    #[pyo3(get)]
    truncated: Py<PyArray1<bool>>,
    #[pyo3(get)]
    seat: Py<PyArray1<i64>>,
    #[pyo3(get)]
    ending: Py<PyArray1<i8>>,
    #[pyo3(get)]
    plies: Py<PyArray2<i32>>,
    /// The game each env's live episode plays, as an index into `games`.
    #[pyo3(get)]
    episode_game: Py<PyArray1<i8>>,
}

/// A buffer borrowed for writing; a buffer already borrowed (an `actions` array
/// that is one of the env's own buffers) is an error, not a panic.
fn writable<'py, T: numpy::Element, D: numpy::ndarray::Dimension>(
    a: &Bound<'py, numpy::PyArray<T, D>>,
) -> PyResult<numpy::PyReadwriteArray<'py, T, D>> {
    a.try_readwrite().map_err(|e| {
        pyo3::exceptions::PyRuntimeError::new_err(format!(
            "a VecEnv buffer is already borrowed ({e}): pass actions that are not \
             one of the env's own arrays (a copy)"
        ))
    })
}

/// A zeroed buffer from `numpy.zeros`, so that a buffer too large to allocate
/// is numpy's `MemoryError`, not a panic.
fn zeros<T: numpy::Element, D: numpy::ndarray::Dimension>(
    py: Python<'_>,
    shape: Vec<usize>,
) -> PyResult<Py<numpy::PyArray<T, D>>> {
    let dtype = numpy::dtype::<T>(py);
    let array = py
        .import("numpy")?
        .call_method1("zeros", (shape, dtype))?
        .cast_into::<numpy::PyArray<T, D>>()?;
    Ok(array.unbind())
}

impl PyVecEnv {
    /// Run `f` on the core env and every buffer, with the GIL released.
    fn with_buffers<T: Send>(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut vecenv::VecEnv, &mut Buffers) -> T + Send,
    ) -> PyResult<T> {
        let mut obs = writable(self.obs.bind(py))?;
        let mut mask = writable(self.mask.bind(py))?;
        let mut rewards = writable(self.rewards.bind(py))?;
        let mut terminated = writable(self.terminated.bind(py))?;
        let mut truncated = writable(self.truncated.bind(py))?;
        let mut seat = writable(self.seat.bind(py))?;
        let mut ending = writable(self.ending.bind(py))?;
        let mut plies = writable(self.plies.bind(py))?;
        let mut game = writable(self.episode_game.bind(py))?;
        let mut b = Buffers {
            obs: obs.as_slice_mut()?,
            mask: mask.as_slice_mut()?,
            rewards: rewards.as_slice_mut()?,
            terminated: terminated.as_slice_mut()?,
            truncated: truncated.as_slice_mut()?,
            seat: seat.as_slice_mut()?,
            ending: ending.as_slice_mut()?,
            plies: plies.as_slice_mut()?,
            game: game.as_slice_mut()?,
        };
        let env = &mut self.env;
        Ok(py.detach(move || f(env, &mut b)))
    }
}

#[pymethods]
impl PyVecEnv {
    #[new]
    #[pyo3(signature = (game, n, seed, opponents=None, config=None, threads=None))]
    fn new(
        py: Python<'_>,
        game: &str,
        n: usize,
        seed: i64,
        opponents: Option<Vec<Option<String>>>,
        config: Option<&str>,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let config = parse_config(config)?;
        let opponents = opponents.unwrap_or_default();
        let env =
            vecenv::VecEnv::new(game, &config, n, seed, &opponents, threads).map_err(to_pyerr)?;
        let mut shape = vec![n];
        shape.extend(env.obs_shape());
        let (actions, seats) = (env.num_actions(), env.num_seats());
        Ok(PyVecEnv {
            obs: zeros(py, shape)?,
            mask: zeros(py, vec![n, actions])?,
            rewards: zeros(py, vec![n, seats])?,
            terminated: zeros(py, vec![n])?,
            truncated: zeros(py, vec![n])?,
            seat: zeros(py, vec![n])?,
            ending: zeros(py, vec![n])?,
            plies: zeros(py, vec![n, seats])?,
            episode_game: zeros(py, vec![n])?,
            env,
        })
    }

    /// Start a fresh episode in every env (episode counters restart at 0).
    fn reset(&mut self, py: Python<'_>) -> PyResult<()> {
        self.with_buffers(py, |env, b| env.reset(b))?
            .map_err(to_pyerr)
    }

    /// Apply one action id per env; every buffer is rewritten in place.
    fn step(&mut self, py: Python<'_>, actions: PyReadonlyArray1<'_, i64>) -> PyResult<()> {
        let actions = actions.as_slice()?;
        self.with_buffers(py, |env, b| env.step(actions, b))?
            .map_err(to_pyerr)
    }

    /// A uniformly random legal action id per env (each env has its own stream).
    fn sample_legal<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let out = PyArray1::<i64>::zeros(py, self.env.num_envs(), false);
        {
            let mut w = writable(&out)?;
            let slice = w.as_slice_mut()?;
            let env = &mut self.env;
            py.detach(|| env.sample_legal(slice)).map_err(to_pyerr)?;
        }
        Ok(out)
    }

    #[getter]
    fn game(&self) -> &'static str {
        self.env.game_id()
    }
    #[getter]
    fn num_envs(&self) -> usize {
        self.env.num_envs()
    }
    #[getter]
    fn num_seats(&self) -> usize {
        self.env.num_seats()
    }
    #[getter]
    fn num_actions(&self) -> usize {
        self.env.num_actions()
    }
    #[getter]
    fn obs_shape(&self) -> Vec<usize> {
        self.env.obs_shape()
    }
    #[getter]
    fn action_names(&self) -> Vec<String> {
        self.env.action_names()
    }
    #[getter]
    fn learner_seats(&self) -> Vec<usize> {
        self.env.learner_seats()
    }
    #[getter]
    fn games(&self) -> Vec<&'static str> {
        self.env.games()
    }
    #[getter]
    fn action_games(&self) -> Vec<usize> {
        // usize, not u8: PyO3 would turn a Vec<u8> into bytes.
        self.env
            .action_games()
            .into_iter()
            .map(usize::from)
            .collect()
    }
}

/// An observation tensor and a legal-action mask.
type Encoded<'py> = (Bound<'py, PyArrayDyn<f32>>, Bound<'py, PyArray1<bool>>);

/// The observation tensor of `seat` and the active seat's legal-action mask in a state.
#[pyfunction]
pub fn encode<'py>(py: Python<'py>, state: &PyState, seat: usize) -> PyResult<Encoded<'py>> {
    let (shape, obs, mask) = vecenv::encode(&state.0, seat).map_err(to_pyerr)?;
    let obs = PyArray1::from_vec(py, obs).reshape(shape)?;
    debug_assert!(obs.is_contiguous());
    Ok((obs, PyArray1::from_vec(py, mask)))
}

/// The canonical move text of every action id of a state's game, in id order.
#[pyfunction]
pub fn action_names(state: &PyState) -> Vec<String> {
    vecenv::action_names_of(&state.0)
}
