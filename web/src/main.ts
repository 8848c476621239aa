import './no-eval';
import { mount } from 'svelte';
import App from './App.svelte';
import './styles.css';

/** Entry point: mounts the app, which routes between the lobby and a room by the location. */
mount(App, { target: document.getElementById('app') as HTMLElement });
