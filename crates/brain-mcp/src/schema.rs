//! Checking tool arguments against the tool's own `inputSchema`, so the schema a client sees and the
//! arguments the server accepts cannot drift apart.
//!
//! Only the JSON Schema keywords our schemas use are understood: `type` (object, array, string,
//! integer, number, boolean), `properties`, `required`, `additionalProperties: false`, `items`,
//! `enum`, `minimum`, `maximum`, `minItems`, `maxItems`, `minLength`. Messages name the offending
//! argument by its path (`searches[1].type`).

use serde_json::Value;

/// Check `value` against `schema`; the first violation as a sentence.
pub fn check(value: &Value, schema: &Value) -> Result<(), String> {
    walk(value, schema, "")
}

fn name(path: &str) -> String {
    if path.is_empty() {
        "the arguments".into()
    } else {
        format!("`{path}`")
    }
}

fn walk(v: &Value, s: &Value, path: &str) -> Result<(), String> {
    if let Some(t) = s.get("type").and_then(Value::as_str) {
        let ok = match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            _ => true,
        };
        if !ok {
            return Err(format!(
                "{} must be {} {t}, not {}",
                name(path),
                article(t),
                kind(v)
            ));
        }
    }
    if let Some(allowed) = s.get("enum").and_then(Value::as_array)
        && !allowed.contains(v)
    {
        let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
        return Err(format!(
            "{} must be one of {}, not {v}",
            name(path),
            list.join(", ")
        ));
    }
    if let Some(n) = v.as_f64() {
        if let Some(min) = s.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            return Err(format!("{} must be at least {min}, not {n}", name(path)));
        }
        if let Some(max) = s.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            return Err(format!("{} must be at most {max}, not {n}", name(path)));
        }
    }
    if let (Some(text), Some(min)) = (v.as_str(), s.get("minLength").and_then(Value::as_u64))
        && (text.chars().count() as u64) < min
    {
        return Err(format!("{} must not be empty", name(path)));
    }
    if let Some(items) = v.as_array() {
        let len = items.len() as u64;
        if let Some(min) = s.get("minItems").and_then(Value::as_u64)
            && len < min
        {
            return Err(format!("{} needs at least {min} item(s)", name(path)));
        }
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64)
            && len > max
        {
            return Err(format!(
                "{} takes at most {max} items, not {len}",
                name(path)
            ));
        }
        if let Some(item) = s.get("items") {
            for (i, x) in items.iter().enumerate() {
                walk(x, item, &format!("{path}[{i}]"))?;
            }
        }
    }
    if let Some(obj) = v.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        let join = |k: &str| {
            if path.is_empty() {
                k.to_string()
            } else {
                format!("{path}.{k}")
            }
        };
        for req in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(k) = req.as_str()
                && !obj.contains_key(k)
            {
                return Err(format!("`{}` is required", join(k)));
            }
        }
        for (k, x) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(ps) => walk(x, ps, &join(k))?,
                None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    let known: Vec<&String> = props.map(|p| p.keys().collect()).unwrap_or_default();
                    let known: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
                    if known.is_empty() {
                        return Err(format!(
                            "unknown argument `{}` (this takes no arguments)",
                            join(k)
                        ));
                    }
                    return Err(format!(
                        "unknown argument `{}` (known: {})",
                        join(k),
                        known.join(", ")
                    ));
                }
                None => {}
            }
        }
    }
    Ok(())
}

fn article(t: &str) -> &'static str {
    if matches!(t, "object" | "array" | "integer") {
        "an"
    } else {
        "a"
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                "q": {"type": "string", "minLength": 1},
                "searches": {"type": "array", "minItems": 1, "maxItems": 2, "items": {
                    "type": "object",
                    "properties": {"type": {"enum": ["lex", "vec"]}, "query": {"type": "string"}},
                    "required": ["type", "query"],
                    "additionalProperties": false
                }}
            },
            "required": ["q"],
            "additionalProperties": false
        })
    }

    #[test]
    fn violations_name_the_argument() {
        let s = schema();
        let err = |v: Value| check(&v, &s).expect_err("violation");
        assert!(check(&json!({"q": "x", "limit": 3}), &s).is_ok());
        assert_eq!(
            err(json!([])),
            "the arguments must be an object, not an array"
        );
        assert_eq!(err(json!({})), "`q` is required");
        assert_eq!(err(json!({"q": ""})), "`q` must not be empty");
        assert_eq!(
            err(json!({"q": "x", "limit": "ten"})),
            "`limit` must be an integer, not a string"
        );
        assert_eq!(
            err(json!({"q": "x", "limit": 1.5})),
            "`limit` must be an integer, not a number"
        );
        assert_eq!(
            err(json!({"q": "x", "limit": 0})),
            "`limit` must be at least 1, not 0"
        );
        assert_eq!(
            err(json!({"q": "x", "lmit": 1})),
            "unknown argument `lmit` (known: `limit`, `q`, `searches`)"
        );
        assert_eq!(
            err(
                json!({"q": "x", "searches": [{"type": "lex", "query": "a"}, {"type": "sql", "query": "b"}]})
            ),
            "`searches[1].type` must be one of \"lex\", \"vec\", not \"sql\""
        );
        assert_eq!(
            err(json!({"q": "x", "searches": []})),
            "`searches` needs at least 1 item(s)"
        );
        let none = json!({"type": "object", "properties": {}, "additionalProperties": false});
        assert!(check(&json!({}), &none).is_ok());
        assert_eq!(
            check(&json!({"verbose": true}), &none).expect_err("no arguments"),
            "unknown argument `verbose` (this takes no arguments)"
        );
    }
}
