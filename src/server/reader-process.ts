/**
 * The entry point readers.ts forks: runs this process as one of a node's reader processes
 * (reader.ts). Importing it starts a reader, so nothing else imports it.
 */

import { runReader } from './reader.js';

runReader();
