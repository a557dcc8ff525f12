# The default model folder holds weights that are not the pinned ones.
m=home/models/all-MiniLM-L6-v2; mkdir -p $m
echo '{}' >$m/config.json; echo '{}' >$m/tokenizer.json; echo 'not the weights' >$m/model.safetensors
