/** A scripted agent for restart tests: a real shell program, each run its own prompt file. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** An agent that ticks the boxes of the story its prompt names and claims COMPLETE; each prompt saved as prompt-N.txt. */
export function tickingAgent(dir: string): string {
  const script = join(dir, "agent.sh");
  writeFileSync(
    script,
    `n=$(cat ${dir}/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${dir}/n; cat > ${dir}/prompt-$n.txt
id=$(grep -o 'Your story: [0-9]*' ${dir}/prompt-$n.txt | grep -o '[0-9]*$')
sed -i "s/- \\[ \\] $id\\./- [x] $id./" tasks.md
echo '<promise>COMPLETE</promise>'
`,
  );
  return `sh ${script}`;
}
