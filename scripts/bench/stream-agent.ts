// A fake `claude` for the memory benchmark: streams BENCH_STREAM_MB of stream-json quickly — half
// of it as ~1 KB assistant messages, half as 10 MB ones (1 of them for 20 MB, 10 for 200 MB) — then a result.
const totalMb = Number(process.env.BENCH_STREAM_MB ?? "20");
const big = Number(process.env.BENCH_BIG_MESSAGES ?? Math.round(totalMb / 20));
await Bun.stdin.text();
const line = (text: string) => JSON.stringify({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text }] } }) + "\n";
const small = line("x".repeat(900)); // ~1 KB a line
const chunk = small.repeat(256); // ~256 KB a write
const bigLine = line("y".repeat(10 * 1024 * 1024));
const target = totalMb * 1024 * 1024 - big * bigLine.length;
let written = 0;
const out = Bun.stdout.writer();
let bigsLeft = big;
while (written < target) {
  out.write(chunk);
  written += chunk.length;
  if (bigsLeft > 0 && written > (target / (big + 1)) * (big - bigsLeft + 1)) {
    out.write(bigLine);
    bigsLeft--;
  }
  await out.flush();
}
for (; bigsLeft > 0; bigsLeft--) out.write(bigLine);
out.write(
  JSON.stringify({
    type: "result",
    subtype: "success",
    is_error: false,
    num_turns: 1,
    result: "<promise>COMPLETE</promise>",
    total_cost_usd: 0,
    usage: { input_tokens: 1, output_tokens: 1 },
  }) + "\n",
);
await out.end();
