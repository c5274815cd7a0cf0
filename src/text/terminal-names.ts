/** The terminals `--terminal` knows by name (term/window.ts launches each); any other name is run with `-e`. */
export const TERMINAL_NAMES = [
  "tmux",
  "tmux-detached",
  "iterm2",
  "terminal-app",
  "kitty",
  "wezterm",
  "alacritty",
  "konsole",
  "gnome-terminal",
  "foot",
  "x-terminal-emulator",
  "xterm",
] as const;
