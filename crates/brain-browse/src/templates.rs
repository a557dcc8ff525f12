//! The page templates (minijinja, compiled into the binary): every `.html` template escapes every
//! value it prints unless the value is marked safe — which only [`crate::markdown`]'s output is.

use minijinja::Environment;

/// The templates, by name.
const TEMPLATES: [(&str, &str); 9] = [
    ("base.html", include_str!("../templates/base.html")),
    ("overview.html", include_str!("../templates/overview.html")),
    ("timeline.html", include_str!("../templates/timeline.html")),
    ("search.html", include_str!("../templates/search.html")),
    ("doc.html", include_str!("../templates/doc.html")),
    ("session.html", include_str!("../templates/session.html")),
    ("entities.html", include_str!("../templates/entities.html")),
    ("entity.html", include_str!("../templates/entity.html")),
    ("error.html", include_str!("../templates/error.html")),
];

/// The stylesheet, served at `/static/style.css`.
pub const STYLE: &str = include_str!("../static/style.css");

/// The environment with every template loaded (a template that does not parse is a bug caught
/// by the tests, never a page that fails at run time).
pub fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    for (name, source) in TEMPLATES {
        if let Err(e) = env.add_template(name, source) {
            // Compiled in: a broken template fails every test that renders a page.
            panic!("template {name}: {e}");
        }
    }
    env
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_template_parses() {
        let env = super::environment();
        for (name, _) in super::TEMPLATES {
            assert!(env.get_template(name).is_ok(), "{name}");
        }
    }
}
