/** The workbench's entry: styles, the app, then the catch-up and the event socket. */
import { render } from 'preact';
import './styles.css';
import { App } from './app';
import { interceptLinks } from './router';
import { connect } from './sync';
import { reportPresence } from './presence';
import './chat-live';

const root = document.getElementById('app')!;
interceptLinks(root);
render(<App />, root);
reportPresence();
void connect();
