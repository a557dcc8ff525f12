//! Records by decay tier: the counts `status`, `stats` and `brain memory tiers` show (the tiers
//! themselves and how a record gets one are `crate::access`'s).

/// Records by tier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TierCounts {
    pub hot: u64,
    pub warm: u64,
    pub cold: u64,
}
