/**
 * `wt-loop completion bash|zsh|fish` prints the shell's script; `wt-loop __complete SHELL -- WORDS…`
 * (hidden, what those scripts run at each Tab) prints the candidates, one a line, `value<TAB>description`
 * for zsh and fish. The candidates, and `__complete` itself (main.ts runs it apart from the catalog):
 * commands/_complete.ts.
 */
import { defineCommand } from "citty";
import { UserError } from "../errors.ts";
import { action, givenOptions } from "./_args.ts";
import { write } from "../term/print.ts";

export const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

// Each script runs the same program the user typed (`${COMP_WORDS[0]}`, `$words[1]`, `$tokens[1]`), so a
// wt-loop that is not on PATH completes too; its errors are not shown in the middle of the command line.
const SCRIPTS: Record<Shell, string> = {
  bash: `# wt-loop completion for bash. Load it in ~/.bashrc:  source <(wt-loop completion bash)
# or save it as ~/.local/share/bash-completion/completions/wt-loop
_wt_loop_complete() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  [[ $cur == "=" ]] && cur=""
  local IFS=$'\\n'
  COMPREPLY=($("\${COMP_WORDS[0]}" __complete bash -- "\${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null))
}
complete -o default -F _wt_loop_complete wt-loop
`,
  zsh: `#compdef wt-loop
# wt-loop completion for zsh. Load it in ~/.zshrc (after compinit):  source <(wt-loop completion zsh)
# or save it as _wt-loop in a folder of $fpath
_wt_loop_complete() {
  local -a lines items
  local line
  lines=("\${(@f)$("\${words[1]}" __complete zsh -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  for line in "\${lines[@]}"; do
    [[ -z $line ]] && continue
    if [[ $line == *$'\\t'* ]]; then items+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
    else items+=("\${line//:/\\\\:}"); fi
  done
  if (( \${#items} )); then _describe -t wt-loop 'wt-loop' items
  else _files; fi
}
compdef _wt_loop_complete wt-loop
`,
  fish: `# wt-loop completion for fish. Save it:  wt-loop completion fish > ~/.config/fish/completions/wt-loop.fish
function __wt_loop_complete
    set -l tokens (commandline -opc)
    $tokens[1] __complete fish -- $tokens[2..-1] (commandline -ct) 2>/dev/null
end
complete -c wt-loop -f -a '(__wt_loop_complete)'
`,
};

const args = {
  shell: { type: "positional", required: false, valueHint: SHELLS.join("|"), description: "The shell: bash, zsh or fish" },
} as const;

export default defineCommand({
  meta: { name: "completion" },
  args,
  run: action(async ({ args: a, rawArgs }) => {
    givenOptions("completion", args, rawArgs, a);
    const shell = a.shell as Shell | undefined;
    if (!shell) throw new UserError(`Name the shell: wt-loop completion ${SHELLS.join("|")}. Then, for bash: source <(wt-loop completion bash)`);
    if (!SHELLS.includes(shell)) throw new UserError(`wt-loop completion takes ${SHELLS.join(", ")}, got '${shell}'.`);
    write(SCRIPTS[shell]);
  }),
});
