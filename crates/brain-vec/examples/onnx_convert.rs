//! Convert a BERT-family ONNX export into `model.safetensors` (brain_vec::onnx): the check that an
//! export's weights load in our encoder and give its vectors.
//!
//!   cargo run --release -p brain-vec --example onnx_convert -- model.onnx OUT_DIR

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(input), Some(out)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: onnx_convert MODEL.onnx OUT_DIR");
        std::process::exit(64);
    };
    let bytes = std::fs::read(input).unwrap_or_else(|e| {
        eprintln!("{input}: {e}");
        std::process::exit(66)
    });
    let weights = brain_vec::onnx::bert_weights(&bytes).unwrap_or_else(|e| {
        eprintln!("{input}: {e}");
        std::process::exit(65)
    });
    let st = brain_vec::onnx::to_safetensors(&weights).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(99)
    });
    let _ = std::fs::create_dir_all(out);
    let path = std::path::Path::new(out).join("model.safetensors");
    if let Err(e) = std::fs::write(&path, st) {
        eprintln!("{}: {e}", path.display());
        std::process::exit(99);
    }
    eprintln!("{} tensors -> {}", weights.len(), path.display());
}
