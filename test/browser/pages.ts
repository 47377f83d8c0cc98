/** Fixture pages for the browser tools: a shop page with an open shadow root, a same-origin iframe, a field that asks for a password, and a part that rerenders. */
export const SHOP = `<!doctype html><title>Shop</title>
<h1>Shop</h1>
<a href="/next">Next page</a>
<button id="add" onclick="this.textContent='Added'">Add to cart</button>
<label for="name">Name</label><input id="name">
<label for="pw">Password</label><input id="pw" type="password">
<label for="size">Size</label><select id="size"><option value="s">Small</option><option value="m">Medium</option></select>
<button onclick="document.getElementById('box').innerHTML='<button>Fresh</button>'">Rerender</button>
<div id="box"><button>Old</button></div>
<div id="host"></div>
<script>document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = '<button onclick="this.textContent=\\'Shadow clicked\\'">Shadow button</button>';</script>
<iframe src="/frame" title="Inner"></iframe>
<input id="login" type="password" aria-label="Login">
<input id="card" autocomplete="cc-number" aria-label="Number">
<input id="note" aria-label="Note">
<div style="height: 2400px"></div>
<p>Bottom of the shop</p>`;

export const FRAME = `<!doctype html><title>Inner</title><button onclick="this.textContent='Frame clicked'">Frame button</button>`;

export const NEXT = `<!doctype html><title>Next</title><h1>Arrived</h1><p>The next page.</p>`;

/** A page of `n` elements, a tenth of them buttons (bench/browser and the snapshot size test). */
export function bigPage(n: number): string {
  const rows: string[] = [];
  for (let i = 0; i < n / 10; i++) rows.push(`<div class="row"><span>Item ${i}</span><span>detail</span><span>more</span><em>x</em><b>y</b><i>z</i><small>s</small><u>u</u><button>Buy ${i}</button></div>`);
  return `<!doctype html><title>Big</title><h1>Catalogue</h1>${rows.join('')}`;
}
