/** A one-line progress bar on a terminal; on anything else, a line at 0%, 50% and 100%. */
export function createProgressBar(label: string, total: number, stream: NodeJS.WriteStream = process.stdout) {
  const width = 30;
  let lastMilestone = -1;
  return {
    update(done: number) {
      const fraction = total === 0 ? 1 : done / total;
      const filled = Math.round(fraction * width);
      const line = `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`;
      if (stream.isTTY) {
        stream.write(`\r${line}`);
        if (done === total) stream.write('\n');
        return;
      }
      const milestone = Math.floor(fraction * 2);
      if (milestone !== lastMilestone) {
        lastMilestone = milestone;
        stream.write(`${line}\n`);
      }
    },
  };
}
