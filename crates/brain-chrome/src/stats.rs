//! Counts of a run, printed as its summary on stderr: every cut the policy made is counted.

use crate::policy::{SearchCut, VisitCut};

/// What a run read, kept and cut.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// History files read.
    pub profiles: u64,
    /// Visit rows read.
    pub visits_read: u64,
    /// Visits kept.
    pub visits_kept: u64,
    /// Day documents emitted.
    pub days: u64,
    /// Cuts by reason.
    pub internal: u64,
    pub local: u64,
    pub denied: u64,
    pub not_allowed: u64,
    pub nsfw: u64,
    /// Automatic sub-frame loads (ads, embeds), never shown by the browser's own history page.
    pub subframe: u64,
    /// Search results pages dropped because their search was injected or NSFW.
    pub junk_search_pages: u64,
    /// Rows that could not be used (reported as warnings).
    pub odd: u64,
    /// Searches kept and cut.
    pub searches: u64,
    pub search_duplicate: u64,
    pub search_too_long: u64,
    pub search_injected: u64,
    pub search_nsfw: u64,
    pub search_empty: u64,
    /// Tracking parameters removed from URLs.
    pub params_stripped: u64,
}

impl Stats {
    /// Count one cut visit.
    pub fn visit_cut(&mut self, cut: VisitCut) {
        match cut {
            VisitCut::Internal => self.internal += 1,
            VisitCut::Local => self.local += 1,
            VisitCut::Denied => self.denied += 1,
            VisitCut::NotAllowed => self.not_allowed += 1,
            VisitCut::Nsfw => self.nsfw += 1,
        }
    }

    /// Count one cut search.
    pub fn search_cut(&mut self, cut: SearchCut) {
        match cut {
            SearchCut::Empty => self.search_empty += 1,
            SearchCut::TooLong => self.search_too_long += 1,
            SearchCut::Injected => self.search_injected += 1,
            SearchCut::Nsfw => self.search_nsfw += 1,
        }
    }

    /// The one-paragraph run summary.
    pub fn summary(&self) -> String {
        format!(
            "{} days from {} profile(s); visits: {} read, {} kept; cut: {} internal, {} local, {} denied, \
             {} not allowed, {} nsfw, {} subframe, {} junk search pages, {} odd rows; searches: {} kept; cut: {} duplicate, \
             {} too long, {} injected, {} nsfw, {} empty; tracking parameters stripped: {}",
            self.days,
            self.profiles,
            self.visits_read,
            self.visits_kept,
            self.internal,
            self.local,
            self.denied,
            self.not_allowed,
            self.nsfw,
            self.subframe,
            self.junk_search_pages,
            self.odd,
            self.searches,
            self.search_duplicate,
            self.search_too_long,
            self.search_injected,
            self.search_nsfw,
            self.search_empty,
            self.params_stripped,
        )
    }
}
