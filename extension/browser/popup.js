// The popup: the bridge's state as the service worker sees it, and a Connect button (after another browser took the bridge).
const LABELS = {
  connected: 'Connected to the engine',
  connecting: 'Connecting…',
  starting: 'Starting…',
  disconnected: 'Not connected',
  unpaired: 'Not paired yet',
  replaced: 'Another browser has the bridge',
};

async function show() {
  const s = await chrome.runtime.sendMessage({ type: 'status' });
  document.getElementById('dot').className = s.status;
  document.getElementById('status').textContent = LABELS[s.status] || s.status;
  document.getElementById('detail').textContent = s.detail || '';
  document.getElementById('version').textContent = `v${s.version}`;
  document.getElementById('connect').hidden = s.status === 'connected';
}

document.getElementById('connect').addEventListener('click', async () => {
  await chrome.runtime.sendMessage({ type: 'connect' });
  setTimeout(show, 300);
});
show();
setInterval(show, 1000);
