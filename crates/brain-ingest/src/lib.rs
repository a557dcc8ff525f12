//! Agent transcript parsers.
