#!/usr/bin/env bash
# The action's second step (action.yml): run one loop with the inputs, then hand its result to the
# workflow — the outputs `status`, `pr-url` and `receipt` (JSON), and the receipt on the job's summary
# page. The step ends with wt-loop's own exit code (0 done, 1 a mistake, 2 stuck, 3 stalled, 4 stopped).
# Inputs come as INPUT_* environment variables (action.yml maps them); GITHUB_OUTPUT and
# GITHUB_STEP_SUMMARY are set by the runner.
set -uo pipefail

fail() { echo "::error title=wt-loop::$1" >&2; exit 1; }
command -v jq >/dev/null || fail "The action reads wt-loop's JSON with jq, which is not on this runner. Install it in an earlier step."

args=(run --plain)
[[ -n ${INPUT_ISSUE:-} ]] && args+=(--issue "$INPUT_ISSUE")
[[ -n ${INPUT_CHANGE:-} ]] && args+=(--change "$INPUT_CHANGE")
[[ -n ${INPUT_AGENT:-} ]] && args+=(--agent "$INPUT_AGENT")
[[ -n ${INPUT_MODEL:-} ]] && args+=(--model "$INPUT_MODEL")
[[ -n ${INPUT_VERIFY:-} ]] && args+=(--verify "$INPUT_VERIFY")
[[ -n ${INPUT_MAX:-} ]] && args+=(--max "$INPUT_MAX")
[[ -n ${INPUT_MAX_COST:-} ]] && args+=(--max-cost "$INPUT_MAX_COST")
[[ -n ${INPUT_PARALLEL:-} ]] && args+=(--parallel "$INPUT_PARALLEL")
[[ -n ${INPUT_ON_COMPLETE:-} ]] && args+=(--on-complete "$INPUT_ON_COMPLETE")
[[ ${INPUT_SANDBOX:-true} == true ]] && args+=(--sandbox)
if [[ -z ${INPUT_ISSUE:-}${INPUT_CHANGE:-}${INPUT_TASK:-} ]]; then
  fail "Nothing to work on: give the action an 'issue' (on an issues event: \${{ github.event.issue.number }}), a 'change' or a 'task'."
fi
# More options, one line, split as the shell splits words (no quotes inside): `--review claude --max-retries 2`.
# shellcheck disable=SC2206
[[ -n ${INPUT_ARGS:-} ]] && args+=($INPUT_ARGS)
[[ -n ${INPUT_TASK:-} ]] && args+=("$INPUT_TASK")

# A runner's git has no identity, and every checkpoint is a commit: the Actions bot's, unless the workflow set one.
if ! git config user.email >/dev/null; then
  git config user.name "github-actions[bot]"
  git config user.email "41898282+github-actions[bot]@users.noreply.github.com"
fi

echo "wt-loop ${args[*]}"
wt-loop "${args[@]}"
code=$?

# The result, whatever it was. No state (a refusal before the loop began) leaves the outputs empty.
if state=$(wt-loop status --json 2>/dev/null); then
  # One jq pass, one value per line (the receipt compact, so it is one line too).
  { read -r status; read -r pr; read -r receipt; } < <(jq -r '.status, (.pull_request.url // ""), (.receipt | tojson)' <<<"$state")
  {
    echo "status=$status"
    echo "pr-url=$pr"
    echo "receipt=$receipt"
  } >>"${GITHUB_OUTPUT:-/dev/null}"
  {
    echo "## wt-loop: $status"
    [[ -n $pr ]] && echo && echo "Pull request: $pr"
    echo
    echo '```'
    NO_COLOR=1 wt-loop status 2>&1
    echo '```'
  } >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
else
  echo "status=" >>"${GITHUB_OUTPUT:-/dev/null}"
  echo "## wt-loop did not start (exit $code): see the step's log" >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
fi
exit "$code"
