//! Doctor's `projects` check: the projects the index holds, one per repository (issue 57).

use brain_store::Home;

use super::Check;

/// The projects the index holds, and the folders of each that was worked in more than one (a
/// repository's worktrees and subfolders are one project,
/// [`brain_rank::entity::project_folders`]): listed (in text too), never a failure. Skipped
/// without a lexical index.
pub fn projects(home: &Home, config: Option<&brain_store::Config>) -> Check {
    const SHOWN: usize = 20;
    let known = brain_lex::LexIndex::open(home).ok().and_then(|lex| {
        brain_lex::search::Searcher::new(&lex)
            .and_then(|s| s.projects())
            .ok()
    });
    let Some(known) = known else {
        return Check::skip("projects", "no lexical index to read", "lexindex --all");
    };
    let merged = config
        .and_then(|c| c.projects.as_ref())
        .filter(|p| p.check().is_ok())
        .map(brain_store::ProjectsSection::pairs)
        .unwrap_or_default();
    let groups = brain_rank::entity::project_folders(&known, &merged);
    let several = groups.iter().filter(|(_, f)| f.len() > 1).count();
    // Listed: a project of several folders, or one renamed (named other than its folder).
    let mut details: Vec<String> = groups
        .iter()
        .filter(|(p, f)| f.len() > 1 || f.first() != Some(p))
        .take(SHOWN)
        .map(|(p, folders)| format!("{p}: {}", folders.join(", ")))
        .collect();
    let listed = groups
        .iter()
        .filter(|(p, f)| f.len() > 1 || f.first() != Some(p))
        .count();
    if listed > SHOWN {
        details.push(format!("… and {} more", listed - SHOWN));
    }
    Check::pass(
        "projects",
        format!(
            "{} projects, {several} worked in more than one folder (worktrees, subfolders)",
            groups.len()
        ),
    )
    .with(details)
}
