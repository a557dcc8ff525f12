#!/usr/bin/env python3
"""Generate a synthetic Chrome History (schema 70) for bench/chrome2md.sh.

usage: chrome_history_gen.py OUT.sqlite [VISITS] [DAYS]

Defaults: 1,000,000 visits over 3 years (1,096 days), 200,000 URLs on 3,000 domains (Zipf-like
popularity), 4% search results pages with keyword_search_terms rows, content annotations and cluster
labels on 1% of visits, a few internal/local/tracking URLs. Deterministic (seeded). Tables come from
golden/chrome2md/modern.sql (Chromium's history.70.sql schema), so the indexes match a real profile.
"""

import os
import random
import sqlite3
import sys

WEBKIT_OFFSET_S = 11644473600  # seconds from 1601-01-01 to 1970-01-01


def main() -> None:
    out = sys.argv[1]
    visits = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    days = int(sys.argv[3]) if len(sys.argv) > 3 else 1096
    rnd = random.Random(20261122)
    here = os.path.dirname(os.path.abspath(__file__))
    schema = open(os.path.join(here, "..", "golden", "chrome2md", "modern.sql"), encoding="utf-8").read()
    creates = "\n".join(l for l in schema.splitlines() if l.startswith("CREATE "))
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out)
    db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + creates)
    db.execute("INSERT INTO meta VALUES ('version', '70'), ('last_compatible_version', '16')")

    words = [w.strip() for w in "rust tantivy sqlite vector search index query embedding model cache async tokio " 
             "serde parser token shell pipeline markdown agent memory retrieval ranking fusion recall chrome "
             "history browser profile wal journal lock atomic write stream filter ndjson schema golden bench".split()]
    tlds = ["com", "org", "io", "dev", "net", "rs", "co.uk", "de"]
    domains = [f"{rnd.choice(['www.', '', 'docs.', 'blog.'])}{rnd.choice(words)}{i}.{rnd.choice(tlds)}" for i in range(3000)]
    n_urls = 200_000
    urls = []
    for i in range(1, n_urls + 1):
        r = rnd.random()
        if r < 0.04:
            q = " ".join(rnd.sample(words, 3))
            urls.append((i, "https://www.google.com/search?q=" + q.replace(" ", "+"), q + " - Google Search", q))
            continue
        d = domains[min(int(rnd.paretovariate(1.1)) - 1, len(domains) - 1)]
        path = "/".join(rnd.sample(words, 2))
        url = f"https://{d}/{path}/{i}"
        if r < 0.07:
            url += "?utm_source=newsletter&utm_medium=email&id=" + str(i)
        elif r < 0.075:
            url = f"chrome://settings/{i}"
        elif r < 0.08:
            url = f"http://localhost:{3000 + i % 10}/{path}"
        title = " ".join(rnd.choice(words).capitalize() for _ in range(rnd.randint(2, 8))) if r < 0.97 else ""
        urls.append((i, url, title, None))
    db.executemany(
        "INSERT INTO urls (id, url, title, visit_count, typed_count, last_visit_time, hidden) VALUES (?, ?, ?, 1, 0, 0, 0)",
        ((i, u, t) for i, u, t, _ in urls),
    )
    db.executemany(
        "INSERT INTO keyword_search_terms (keyword_id, url_id, term, normalized_term) VALUES (2, ?, ?, ?)",
        ((i, q, q) for i, _, _, q in urls if q),
    )
    start = 1_700_000_000  # 2023-11-14 22:13:20 UTC
    span = days * 86400
    times = sorted(rnd.randrange(span) for _ in range(visits))

    def visit_rows():
        for vid, t in enumerate(times, 1):
            url_id = min(int(rnd.paretovariate(0.6)), n_urls)
            transition = 3 if rnd.random() < 0.02 else 805306368
            yield (vid, url_id, (start + t + WEBKIT_OFFSET_S) * 1_000_000 + rnd.randrange(1_000_000), transition)

    db.executemany("INSERT INTO visits (id, url, visit_time, transition) VALUES (?, ?, ?, ?)", visit_rows())
    db.executemany(
        "INSERT INTO content_annotations (visit_id, annotation_flags, search_terms, password_state, has_url_keyed_image) "
        "VALUES (?, 0, ?, 0, 0)",
        ((v, " ".join(rnd.sample(words, 2))) for v in range(1, visits + 1, 100)),
    )
    db.executemany(
        "INSERT INTO clusters VALUES (?, 1, ?, ?, 1, '', 0)",
        ((c, f"{words[c % len(words)].capitalize()} research", "") for c in range(1, 2001)),
    )
    db.executemany(
        "INSERT INTO cluster_keywords VALUES (?, ?, 0, 0.5, '')",
        ((c, words[(c + k) % len(words)]) for c in range(1, 2001) for k in range(3)),
    )
    db.executemany(
        "INSERT INTO clusters_and_visits (cluster_id, visit_id, url_for_deduping, normalized_url, url_for_display) "
        "VALUES (?, ?, '', '', '')",
        ((1 + v // 500 % 2000, v) for v in range(1, visits + 1, 100)),
    )
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
