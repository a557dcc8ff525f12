//! Issue 38, the small things a new user trips on (the parts done so far): `brain entity` with no
//! name lists; an entity's own id (as `entity list` and the ambiguity error print it) names it;
//! minutes are a time unit (`--since 10m`).

use brain_tests::{command, run};

#[test]
fn brain_entity_without_a_name_lists_and_every_listed_id_names_its_entity() {
    let work = tempfile::tempdir().expect("tempdir");
    let Some(home) = brain_tests::vault_home(work.path(), false) else {
        return;
    };
    let bare = run(command("brain", &home).arg("entity"), b"");
    assert_eq!(
        bare.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&bare.stderr)
    );
    let listed = run(command("brain", &home).args(["entity", "list"]), b"");
    assert_eq!(
        bare.stdout, listed.stdout,
        "`brain entity` is `brain entity list`"
    );
    let json = run(
        command("brain", &home).args(["entity", "list", "--json"]),
        b"",
    );
    let ids: Vec<String> = brain_tests::parse_lines::<serde_json::Value>(&json.stdout)
        .iter()
        .filter_map(|e| e["id"].as_str().map(str::to_string))
        .collect();
    assert!(ids.len() >= 2, "{ids:?}");
    for id in &ids {
        let page = run(command("brain", &home).args(["entity", "--json", id]), b"");
        assert_eq!(
            page.status.code(),
            Some(0),
            "{id}: {}",
            String::from_utf8_lossy(&page.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&page.stdout).expect("page");
        assert_eq!(v["entity"]["id"], id.as_str());
    }
}

#[test]
fn minutes_are_a_unit_of_since() {
    let work = tempfile::tempdir().expect("tempdir");
    let Some(home) = brain_tests::vault_home(work.path(), false) else {
        return;
    };
    for since in ["10m", "90min"] {
        let out = run(
            command("brain", &home).args(["recent", "--since", since]),
            b"",
        );
        // The vault was just indexed: its documents became visible within the window.
        assert_eq!(
            out.status.code(),
            Some(0),
            "{since}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains(" since "));
    }
}
