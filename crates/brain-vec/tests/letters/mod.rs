//! A deterministic fake embedder and a small corpus for the store's tests (no model needed).

use std::sync::atomic::{AtomicUsize, Ordering};

use brain_doc::{Doc, Source};
use brain_vec::embed::normalize;
use brain_vec::index::Input;
use brain_vec::{Embedder, VecError};

/// Embeds a text as the normalized counts of the letters a–h; counts the texts it embedded.
pub struct Letters {
    pub calls: AtomicUsize,
    name: &'static str,
}

impl Letters {
    pub fn new(name: &'static str) -> Self {
        Letters {
            calls: AtomicUsize::new(0),
            name,
        }
    }
}

impl Embedder for Letters {
    fn model_id(&self) -> String {
        self.name.into()
    }
    fn dims(&self) -> usize {
        8
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, VecError> {
        self.calls.fetch_add(texts.len(), Ordering::Relaxed);
        Ok(texts
            .iter()
            .map(|t| {
                let mut v: Vec<f32> = "abcdefgh"
                    .chars()
                    .map(|c| t.chars().filter(|x| *x == c).count() as f32 + 0.01)
                    .collect();
                normalize(&mut v);
                v
            })
            .collect())
    }
}

pub fn input(id: &str, date: &str, body: &str) -> Input {
    let mut d = Doc::new(id, "", date, Source::new("note", ""));
    d.collection = id.split('/').next().map(str::to_string);
    d.body = body.into();
    Input::from_doc(d)
}

/// Two collections, three dates, one document of two chunks.
pub fn three_docs() -> Vec<Input> {
    vec![
        input("a/1.md", "2026-01-10", "aaaa aaaa\n\n# Other\n\nbbbb"),
        input("a/2.md", "2025-06-01", "hhhh hhhh"),
        input("b/3.md", "2026-02-01", "aaab"),
    ]
}

pub fn query(e: &Letters, text: &str) -> Vec<f32> {
    e.embed(&[text]).expect("embed").remove(0)
}
