# Sourced by sidebyside.sh and check.sh: sets PYTHON to an interpreter that
# imports torch (PYTHON if set, else python3, else /usr/bin/python3, where
# Debian's python3-torch installs), or exits 2 saying how to get one.
if [[ -z ${PYTHON:-} ]]; then
	for p in python3 /usr/bin/python3; do
		if command -v "$p" >/dev/null && "$p" -c 'import torch' 2>/dev/null; then
			PYTHON=$p
			break
		fi
	done
fi
if [[ -z ${PYTHON:-} ]] || ! "$PYTHON" -c 'import torch' 2>/dev/null; then
	echo "${0##*/}: no Python that imports torch${PYTHON:+ ($PYTHON cannot)}: install PyTorch (Debian 12: apt-get install python3-torch; elsewhere pip install torch) or set PYTHON" >&2
	exit 2
fi
