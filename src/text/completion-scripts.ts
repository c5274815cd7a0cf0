/**
 * The scripts `wt-loop completion bash|zsh|fish` prints. Each asks `wt-loop __complete` (catalog/complete.ts)
 * for the candidates at every Tab.
 */
export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

// Each script runs the same program the user typed (`${COMP_WORDS[0]}`, `$words[1]`, `$tokens[1]`), so a
// wt-loop that is not on PATH completes too; its errors are not shown in the middle of the command line.
export const SCRIPTS: Record<Shell, string> = {
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
