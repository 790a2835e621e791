/* Reading the data a report page embeds (shared by the simulation report and the campaign report). */

/**
 * Reads JSON embedded in a script element: gzip-compressed in base64 (a third to a fifth of the plain size),
 * inflated with the browser's own DecompressionStream; plain JSON is read as it is.
 */
async function inflate(holder) {
  const text = holder.textContent.trim();
  if (holder.type === 'application/json') return JSON.parse(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  const inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(inflated).text());
}
