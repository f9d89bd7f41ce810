// Render one JSON-RPC exchange as a table row: method, id, status, and the
// result or error, pretty-printed.
export function renderExchange(request, response) {
  const row = document.createElement("tr");
  const cells = [request.method, String(request.id), response.error ? "error" : "ok",
    JSON.stringify(response.error ?? response.result, null, 2)];
  for (const text of cells) {
    const cell = document.createElement("td");
    cell.textContent = text;
    row.appendChild(cell);
  }
  return row;
}
