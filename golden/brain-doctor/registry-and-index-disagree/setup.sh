# The registry lost its notes rows while the index kept their passages.
python3 -c "import sqlite3; c = sqlite3.connect('home/state.sqlite'); c.execute(\"DELETE FROM documents WHERE collection = 'notes'\"); c.commit()"
