//! The few parts of ONNX's protobuf a weight conversion reads, read by hand and bounds-checked:
//! a model's graph, its initializers (name, dims, element type, values) and its nodes (name, op
//! type, inputs). A length that runs past its message, an unknown wire type or external data is an
//! error, never a panic.

/// One initializer: its name, dims and f32 values.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    pub name: String,
    pub dims: Vec<usize>,
    pub data: Vec<f32>,
}

/// What the conversion reads of a node.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Node {
    pub name: String,
    pub op_type: String,
    pub inputs: Vec<String>,
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

/// ONNX's element types FLOAT, UINT8 and INT8 (the last two: quantized weights and zero points).
pub(super) const FLOAT: u64 = 1;
pub(super) const UINT8: u64 = 2;
pub(super) const INT8: u64 = 3;
/// TensorProto.data_location EXTERNAL.
pub(super) const EXTERNAL: u64 = 1;

/// The initializer in `buf`, its values as f32 (an 8-bit integer exactly); `None` when it is
/// neither float nor 8-bit (an integer buffer or a shape constant).
fn tensor(buf: &[u8]) -> Result<Option<Tensor>, String> {
    let (mut name, mut dims, mut raw, mut floats) = (String::new(), Vec::new(), None, Vec::new());
    // int32_data: where an exporter puts a few 8-bit values (a zero point) instead of raw_data.
    let mut ints: Vec<u64> = Vec::new();
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
            (5, 0, Value::Int(v)) => ints.push(v),
            (5, 2, Value::Bytes(b)) => {
                let mut i = 0;
                while i < b.len() {
                    ints.push(varint(b, &mut i)?);
                }
            }
            (8, _, Value::Bytes(b)) => name = string(b)?,
            (9, _, Value::Bytes(b)) => raw = Some(b),
            (14, _, Value::Int(EXTERNAL)) => {
                return Err(format!("`{name}` keeps its data in another file"));
            }
            _ => {}
        }
    }
    let data: Vec<f32> = match (dtype, raw) {
        (FLOAT, Some(b)) => b
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        (FLOAT, None) => floats,
        (UINT8, Some(b)) => b.iter().map(|&v| f32::from(v)).collect(),
        (INT8, Some(b)) => b.iter().map(|&v| f32::from(v as i8)).collect(),
        // int32_data holds each value sign-extended (a varint of the i32's two's complement).
        (UINT8, None) => ints.iter().map(|&v| f32::from(v as u8)).collect(),
        (INT8, None) => ints.iter().map(|&v| f32::from(v as i32 as i8)).collect(),
        _ => return Ok(None),
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
pub(super) fn graph(bytes: &[u8]) -> Result<(Vec<Tensor>, Vec<Node>), String> {
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
