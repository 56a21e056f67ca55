#!/usr/bin/env bash
# The whole test suite: pytest, then lit (golden-text tests). Creates .venv on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if ! .venv/bin/python -c "import xtvm, pytest, lit, filecheck" 2>/dev/null; then
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install --quiet -e '.[test]'
fi
export PATH="$PWD/.venv/bin:$PATH"
status=0
.venv/bin/pytest tests "$@" || status=$?
.venv/bin/lit lit_tests -q || status=$?
if [ "$status" -eq 0 ]; then
  echo "all tests passed"
fi
exit "$status"
