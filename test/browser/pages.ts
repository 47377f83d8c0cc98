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

/** A 2 400-item list (issue 44 §2), with a needle in an open shadow root and one in a same-origin iframe. */
export function longList(n = 2400): string {
  const items: string[] = [];
  for (let i = 0; i < n; i++) items.push(`<li>Item ${i} <button onclick="this.textContent='Opened ${i}'">Open ${i}</button></li>`);
  return `<!doctype html><title>Long</title><h1>List</h1><ul>${items.join('')}</ul>
<div id="host"></div><script>document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = '<button>Shadow needle</button>';</script>
<iframe src="/frame-needle" title="Needle frame"></iframe>`;
}

export const FRAME_NEEDLE = `<!doctype html><title>Needle frame</title><button>Frame needle</button>`;

/**
 * A living page: what a click starts lands later (a timer, a fetch the fixture server answers late),
 * or never settles (a fetch never answered, a counter that ticks for ever).
 */
export const LIVING = `<!doctype html><title>Living</title><h1>Living</h1>
<button onclick="setTimeout(() => document.getElementById('out').insertAdjacentHTML('beforeend', '<button>Arrived late</button>'), 200)">Later</button>
<button onclick="fetch('/slow').then((r) => r.text()).then((t) => document.getElementById('out').insertAdjacentHTML('beforeend', '<p>' + t + '</p>'))">Fetch</button>
<button onclick="fetch('/hang')">Hang</button>
<button onclick="let n = 0; setInterval(() => (document.getElementById('tick').textContent = ++n), 40)">Tick</button>
<p id="tick"></p><div id="out"></div>`;
