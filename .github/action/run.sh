#!/usr/bin/env bash
# The run step of the GitHub Action (action.yml), kept in a file of its own so
# that a test can run it. Every input arrives as an environment variable,
# never spliced into a script, so nothing in an input is ever run by a shell:
#   MCPC_SERVER, MCPC_URL, MCPC_CONFIG, MCPC_BASELINE  one argument each (empty: left out)
#   MCPC_REPORTS   the folder the JUnit, JSON and HTML reports go to
#   MCPC_ARGS      more flags, split into words like xargs does: blanks separate
#                  words, single or double quotes group them, a backslash escapes
#                  one character. Nothing is expanded ($VAR, $(...), globs) and
#                  nothing is executed: `;`, `|` and `$(...)` are plain characters.
#   MCPC_VERSION   the mcp-conformance version npx runs
#   MCP_CONFORMANCE_ACTION_COMMAND  (tests) one word per line: the command run
#                  instead of `npx --yes mcp-conformance@$MCPC_VERSION`
# Outputs (GITHUB_OUTPUT): exit-code, and reports (the reports folder, absolute).
set -u

cmd=()
if [ -n "${MCP_CONFORMANCE_ACTION_COMMAND:-}" ]; then
  while IFS= read -r word; do [ -n "$word" ] && cmd+=("$word"); done <<<"$MCP_CONFORMANCE_ACTION_COMMAND"
else
  if [ -z "${MCPC_VERSION:-}" ]; then
    echo "::error title=mcp-conformance::the action's version input is empty" >&2
    exit 2
  fi
  cmd=(npx --yes "mcp-conformance@$MCPC_VERSION")
fi

reports="${MCPC_REPORTS:-reports}"
argv=()
if [ -n "${MCPC_SERVER:-}" ]; then argv+=(--server "$MCPC_SERVER"); fi
if [ -n "${MCPC_URL:-}" ]; then argv+=(--url "$MCPC_URL"); fi
if [ -n "${MCPC_CONFIG:-}" ]; then argv+=(--config "$MCPC_CONFIG"); fi
if [ -n "${MCPC_BASELINE:-}" ]; then argv+=(--baseline "$MCPC_BASELINE"); fi
argv+=(--junit "$reports/junit.xml" --json "$reports/results.json" --html "$reports/report.html")

extra=()
if [[ "${MCPC_ARGS:-}" =~ [^[:space:]] ]]; then
  words="$(mktemp)"
  # xargs splits (quotes, backslashes) and hands the words to printf, which writes each NUL-terminated: no shell is involved.
  if ! printf '%s' "$MCPC_ARGS" | xargs printf '%s\0' >"$words"; then
    echo "::error title=mcp-conformance::the action's args input does not split into words (an unmatched quote?)" >&2
    rm -f "$words"
    exit 2
  fi
  while IFS= read -r -d '' word; do extra+=("$word"); done <"$words"
  rm -f "$words"
fi

"${cmd[@]}" "${argv[@]}" ${extra[@]+"${extra[@]}"}
code=$?

case "$reports" in
  /*) where="$reports" ;;
  *) where="$PWD/$reports" ;;
esac
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "exit-code=$code"
    echo "reports=$where"
  } >>"$GITHUB_OUTPUT"
fi
exit "$code"
