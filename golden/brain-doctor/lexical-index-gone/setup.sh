# The tantivy index was deleted.
rm -rf home/index/lex
