# brain.yaml is not YAML any more.
printf 'collections: [oops\n' >home/brain.yaml
