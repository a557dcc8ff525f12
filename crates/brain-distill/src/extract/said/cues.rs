//! The ways of saying a decision, a rejection, a preference or a fact that the extraction
//! without a model reads ([`super`]), each a pattern on a clause whose fillers are gone, anchored
//! at its start; and the words around them (fillers, hedges, requests).

use std::sync::LazyLock;

use regex::{Regex, RegexBuilder};

/// One way of saying it: the record type and the pattern (a `obj` group: what it is about).
pub(super) struct Cue {
    pub(super) kind: &'static str,
    pub(super) re: Regex,
    /// An assistant may say it (else only a user).
    pub(super) assistant: bool,
    /// It counts only when its object names something (`the home page should be …`, not `it
    /// should be …` or `the issue must be …`).
    pub(super) named: bool,
}

fn re(p: &str) -> Regex {
    // The patterns are constants of this file, tested below: a bad one fails every test.
    RegexBuilder::new(p)
        .case_insensitive(true)
        .size_limit(1 << 20)
        .build()
        .unwrap_or_else(|e| panic!("pattern {p}: {e}"))
}

const OBJ: &str = r"(?P<obj>[^.;!?\n]+)";

pub(super) static CUES: LazyLock<Vec<Cue>> = LazyLock::new(|| {
    let choose =
        r"(?:use|go with|switch(?: over)? to|stick with|stay with|keep|adopt|move to|migrate to)";
    let decide = r"(?:use|go with|switch(?: over)? to|stick with|stay with|keep|adopt|move to|migrate to|do|pick|choose|opt for|settle on|set|make|go for|combine|reuse|extend)";
    let decide_we = r"(?:use|go with|switch(?: over)? to|stick with|stay with|keep|adopt|move to|migrate to|pick|choose|opt for|settle on|support|change|run|track|store|put|combine|reuse|extend)";
    let refuse = r"(?:use|add|install|create|produce|commit|push|introduce|touch|change|modify|do|refer to|track|put|write|generate|include|hardcode|mock|check|loop|re-?sync|regenerate|call|rely on|depend on|store|send|overcomplicate|over-engineer)";
    // Each cue is named for the tests and the judged sample.
    let cue = |kind, name: &str, p: String, assistant| Cue {
        kind,
        re: re(&p),
        assistant,
        named: matches!(name, "should-be" | "same-as"),
    };
    vec![
        cue("decision", "lets-choose", format!(r"^let'?s\s+(?:just\s+|also\s+)?{choose}\b\s*{OBJ}"), true),
        cue(
            "decision",
            "lets-set-to",
            r"^let'?s\s+(?:just\s+|also\s+)?(?:update|change|rename|set)\s+(?P<obj>[^.;!?\n]+?)\s+to\s+\S[^.;!?\n]*".into(),
            false,
        ),
        cue("decision", "lets", format!(r"^let'?s\s+(?:just\s+|also\s+)?{decide}\b\s*{OBJ}"), false),
        cue(
            "decision",
            "we-will",
            format!(r"^(?:we|i)\s*(?:'ll|will|should|are going to|'re going to|'m going to|am going to|need to|have to)\s+(?:just\s+)?{decide_we}\b\s*{OBJ}"),
            false,
        ),
        cue("decision", "decided", format!(r"^(?:we|i)\s+(?:have\s+|'ve\s+)?decided\s+(?:to|on)\s+{OBJ}"), false),
        cue(
            "decision",
            "instead-of",
            r"^(?:(?:can|could|would) you\s+)?(?:please\s+)?(?:use|go with|switch to|stick with|keep|prefer|launch|pick|take)\s+(?P<obj>[^.;!?\n]+?)\s+(?:instead of|rather than|over)\s+(?P<alt>[^.;!?\n]+)".into(),
            false,
        ),
        cue(
            "decision",
            "replace",
            r"^(?:(?:can|could|would) you\s+)?(?:please\s+)?replace\s+(?P<alt>[^.;!?\n]+?)\s+with\s+(?P<obj>[^.;!?\n]+)".into(),
            false,
        ),
        cue(
            "decision",
            "keep-the-one",
            r"^(?:please\s+)?(?:keep|use|reuse)\s+(?P<obj>(?:the\s+)?(?:one|same|previous|existing|original|old|current)\b[^.;!?\n]*)".into(),
            false,
        ),
        cue(
            "decision",
            "same-place",
            r"^(?:track|store|put|keep|save|write)\s+(?P<obj>[^.;!?\n]+?)\s+in\s+(?P<alt>the\s+same\s+[^.;!?\n]+)".into(),
            false,
        ),
        cue(
            "decision",
            "should-be",
            r"^(?P<obj>(?:the\s+)?[a-z][A-Za-z0-9_.-]*(?:\s+[A-Za-z0-9_.-]+){0,3}?)\s+(?:should|must)\s+(?:not\s+)?(?:be|use|stay|remain|refer to|have|support|run|point to|track|live|contain|show|start|open|launch|go)\b(?P<alt>[^.;!?\n]*)".into(),
            false,
        ),
        cue("decision", "instead", r"^(?P<obj>[a-z][^.;!?\n]{2,}?)\s+instead$".into(), false),
        cue("fact", "keep-in-mind", format!(r"^keep in mind(?: that)?\s+{OBJ}"), false),
        cue("fact", "same-as", r"^(?P<obj>[A-Za-z0-9_.-]{2,})\s+is\s+the\s+same\s+as\s+[A-Za-z0-9_.-]{2,}$".into(), false),
        cue(
            "preference",
            "by-default",
            format!(r"^(?:by default|from now on|going forward|in the future|as a rule)[,]?\s+{OBJ}"),
            false,
        ),
        cue("preference", "always", format!(r"^(?:please\s+)?always\s+{OBJ}"), false),
        cue(
            "preference",
            "important-not",
            format!(r"^(?:it'?s\s+)?important\s+not\s+to\s+{OBJ}"),
            false,
        ),
        cue(
            "preference",
            "dont-want",
            format!(r"^i\s+(?:really\s+)?(?:don'?t|do not)\s+want\s+(?:to\s+)?{OBJ}"),
            false,
        ),
        cue("preference", "prefer", format!(r"^i\s*(?:would|'d)?\s*(?:prefer|rather)\s+{OBJ}"), false),
        cue("preference", "like-to-keep", format!(r"^(?:i'd like to|i would like to|i want to)\s+keep\s+{OBJ}"), false),
        cue(
            "rejected",
            "dont",
            format!(r"^(?:please\s+)?(?:don'?t|do not|never)\s+(?:ever\s+)?{refuse}\b(?:\s+{OBJ})?$"),
            false,
        ),
        cue(
            "rejected",
            "not-acceptable",
            r"^(?P<obj>[^.;!?\n]+?)\s+(?:is|are|'s)\s+(?:not acceptable|unacceptable|(?:a\s+)?bad idea|not an option|not allowed|not valid|not what i want|not needed)".into(),
            false,
        ),
        cue(
            "rejected",
            "its-bad",
            r"^(?:it'?s|that'?s|this is)\s+(?:not valid|not acceptable|(?:a\s+)?bad idea|not what i want)\s*(?:to\s+)?(?P<obj>[^.;!?\n]*)".into(),
            false,
        ),
        cue(
            "rejected",
            "dont-like",
            format!(r"^i\s+(?:really\s+|actually\s+)?(?:don'?t|do not)\s+(?:much\s+)?like\s+(?:much\s+)?{OBJ}"),
            false,
        ),
        cue("rejected", "no-need", format!(r"^(?:there is|there's|there are)\s+no\s+need\s+(?:to|for)\s+{OBJ}"), false),
        cue("rejected", "dont-need", format!(r"^(?:we|you)\s+(?:don'?t|do not)\s+need\s+(?:to\s+)?{OBJ}"), false),
        cue(
            "rejected",
            "not-doing",
            format!(r"^(?:we're|we are)\s+not\s+(?:doing|using|going to use|going with)\s+{OBJ}"),
            false,
        ),
    ]
});

/// Every cue's pattern, matched at once (a clause that matches none costs one pass).
pub(super) static CUE_SET: LazyLock<regex::RegexSet> = LazyLock::new(|| {
    regex::RegexSetBuilder::new(CUES.iter().map(|c| c.re.as_str()))
        .case_insensitive(true)
        .build()
        .unwrap_or_else(|e| panic!("the cues as a set: {e}"))
});

/// What a user's words turning down a tool call may say besides the cues: a bare instruction
/// (`use pnpm`, `switch to yarn`) is a decision there.
pub(super) static BARE: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"^(?:please\s+)?(?:use|go with|switch to|stick with)\s+{OBJ}"
    ))
});

/// Fillers before a statement ("ok, fine, let's …", "I think we should …").
pub(super) static FILLER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:(?:ok(?:ay)?|fine|yes|yeah|yep|great|good|perfect|alright|all right|right|so|then|actually|also|and|but|please|hmm|well|wait|no|nope|hey|oh|ah|now|instead|ultimately|in the end|after all|i think|i guess|i believe|honestly|however|though|plus|to be clear|more context)\b[,!.:]?\s*)+",
    )
});

/// Clauses that say nothing settled: conditions, hypotheses, hedges.
pub(super) static HEDGE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:if|when|whether|unless|in case|what if|pretend|imagine|suppose)\b|\b(?:maybe|perhaps|might|not sure)\b",
    )
});

/// A question that is a request ("can you use X instead?").
pub(super) static REQUEST: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:can|could|would) you\b"));
