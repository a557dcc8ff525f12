rm -rf home
