# BRAIN_HOME points at a folder that does not exist.
rm -rf home
