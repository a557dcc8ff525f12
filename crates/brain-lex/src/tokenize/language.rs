//! Which Snowball stemmer a text's words also get besides English's: the text's language, when it is
//! another one tantivy stems and the detection is sure of it (whatlang's trigram model, among the
//! languages of [`STEMMED`] only).
//!
//! English stays the index's base: every word keeps its English-stemmed token, as before, so an
//! English text, a wrong guess or a text too short to tell changes nothing; a text found to be
//! German adds, at the same position, the German stem of each word whose German stem differs
//! (`überschreiben` → `uberschreib`). A query found to be German looks for both. Detection reads
//! at most [`SAMPLE`] bytes, and none of an ASCII-only sample (English-like: nothing to add, no cost
//! for the common case).

use std::sync::OnceLock;

use tantivy::tokenizer::Language;

/// Bytes of a text read to tell its language: a few sentences (whatlang's trigram count is the
/// main cost of a non-English text's indexing; a KB took 20 % of a 3,550-page build's CPU).
const SAMPLE: usize = 384;

/// The languages with a Snowball stemmer in tantivy, as whatlang names them (English detected means
/// nothing to add).
const STEMMED: [(whatlang::Lang, Option<Language>); 18] = [
    (whatlang::Lang::Eng, None),
    (whatlang::Lang::Ara, Some(Language::Arabic)),
    (whatlang::Lang::Dan, Some(Language::Danish)),
    (whatlang::Lang::Nld, Some(Language::Dutch)),
    (whatlang::Lang::Fin, Some(Language::Finnish)),
    (whatlang::Lang::Fra, Some(Language::French)),
    (whatlang::Lang::Deu, Some(Language::German)),
    (whatlang::Lang::Ell, Some(Language::Greek)),
    (whatlang::Lang::Hun, Some(Language::Hungarian)),
    (whatlang::Lang::Ita, Some(Language::Italian)),
    (whatlang::Lang::Nob, Some(Language::Norwegian)),
    (whatlang::Lang::Por, Some(Language::Portuguese)),
    (whatlang::Lang::Ron, Some(Language::Romanian)),
    (whatlang::Lang::Rus, Some(Language::Russian)),
    (whatlang::Lang::Spa, Some(Language::Spanish)),
    (whatlang::Lang::Swe, Some(Language::Swedish)),
    (whatlang::Lang::Tam, Some(Language::Tamil)),
    (whatlang::Lang::Tur, Some(Language::Turkish)),
];

/// How sure a query's language must be (whatlang's confidence, 0–1): a question is a few words, and
/// its detection is rarely "reliable" (0.9); a wrong guess only adds stems no page of that
/// language holds. Measured 2026-11-28 on bench/multilingual's 48 questions: 24 told at 0.9, 36 at
/// this value, none wrong (38 and 41 at 0.3 and 0.2, one wrong at 0.2); of SciFact's 1,109 English
/// queries, 15 are told another language at this value (4 at 0.9, 33 at 0.3).
const QUERY_CONFIDENCE: f64 = 0.5;

/// The stemmer the document text `text` also gets: its language when whatlang is sure of it
/// (reliable) and it is not English; `None` otherwise, and without asking for an ASCII-only sample
/// or one holding CJK text (none of these languages).
pub fn language_of(text: &str) -> Option<Language> {
    let sample = sample(text);
    if sample.is_ascii() || sample.chars().any(super::is_cjk) {
        return None;
    }
    detect(sample, None)
}

/// The stemmer a query's words also look for: [`language_of`] for a few words (no ASCII shortcut:
/// "Zeilen einer Textdatei ordnen" is German; a lower confidence, [`QUERY_CONFIDENCE`]).
pub fn query_language(text: &str) -> Option<Language> {
    detect(sample(text), Some(QUERY_CONFIDENCE))
}

/// At most [`SAMPLE`] bytes of `text`, cut at a character boundary.
fn sample(text: &str) -> &str {
    let mut end = text.len().min(SAMPLE);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The language of `sample` among [`STEMMED`]; sure enough when reliable, or at least `confidence`.
fn detect(sample: &str, confidence: Option<f64>) -> Option<Language> {
    static DETECTOR: OnceLock<whatlang::Detector> = OnceLock::new();
    let detector = DETECTOR
        .get_or_init(|| whatlang::Detector::with_allowlist(STEMMED.iter().map(|l| l.0).collect()));
    let info = detector.detect(sample)?;
    let sure = match confidence {
        None => info.is_reliable(),
        Some(c) => info.confidence() >= c,
    };
    if !sure {
        return None;
    }
    STEMMED
        .iter()
        .find(|(l, _)| *l == info.lang())
        .and_then(|(_, stemmer)| *stemmer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_are_told_when_sure_and_english_adds_nothing() {
        let de = "Mehrfaches Überschreiben der angegebenen Dateien, um es schwerer zu machen, \
            die Daten wiederherzustellen.";
        assert_eq!(language_of(de), Some(Language::German));
        let fr = "Afficher le contenu d'un fichier en octal ou sous d'autres formats, à l'écran.";
        assert_eq!(language_of(fr), Some(Language::French));
        let es = "Mostrar el espacio libre en los sistemas de ficheros montados, también en redes.";
        assert_eq!(language_of(es), Some(Language::Spanish));
        let ru = "Выводит информацию о свободном месте на смонтированных файловых системах.";
        assert_eq!(language_of(ru), Some(Language::Russian));
        assert_eq!(
            language_of("The café's naïve résumé was written in English, mostly."),
            None
        );
        assert_eq!(language_of("plain ascii text is never read"), None);
        assert_eq!(language_of(""), None);
        assert_eq!(language_of("数据库"), None);
        // A sample cut inside a character is cut before it.
        let long = format!("{}é{}", "a".repeat(SAMPLE - 1), "b".repeat(10));
        let _ = language_of(&long);
    }
}
