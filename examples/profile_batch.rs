//! Profile a batch of random games: `cargo run --release --example profile_batch -- GAME N`.
use coworld::simulate::Batch;
use serde_json::Value;

fn main() {
    let mut args = std::env::args().skip(1);
    let game = args.next().unwrap_or_else(|| "connect-four".into());
    let episodes: u64 = args.next().and_then(|n| n.parse().ok()).unwrap_or(200_000);
    let seats = if game == "hanabi" { 4 } else { 2 };
    let batch = Batch {
        game: game.clone(),
        config: Value::Null,
        policies: vec!["random".into(); seats],
        start: 0,
        episodes,
        seed: 1,
        openings: 0,
    };
    let started = std::time::Instant::now();
    let records = batch.run(Some(1)).expect("a valid batch");
    let seconds = started.elapsed().as_secs_f64();
    let plies: u64 = records.iter().map(|r| r.plies as u64).sum();
    println!(
        "{game}: {:.0} games/s, {:.0} ns/ply",
        episodes as f64 / seconds,
        seconds * 1e9 / plies as f64
    );
}
