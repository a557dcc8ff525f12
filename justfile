# Mirrors the Makefile; `just <target>` == `make <target>`.
build:
    make build
test:
    make test
lint:
    make lint
fuzz:
    make fuzz
golden-update:
    make golden-update
demo:
    make demo
bench:
    make bench
install:
    make install
model:
    make model
mcp-client:
    make mcp-client
browser:
    make browser
