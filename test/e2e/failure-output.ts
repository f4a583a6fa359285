/**
 * The slow tests' setup (vitest.config.ts): a failed test prints what each node it started
 * wrote (a reader process that died, a stack, an exit), so that a cut connection or a wrong
 * answer comes with the node's own account. Kept apart from support.ts, which the torture and
 * failover scripts import outside vitest.
 */

import { beforeEach, onTestFailed } from 'vitest';
import { forgetStartedNodes, startedNodesOutput } from './support.js';

beforeEach(() => {
  forgetStartedNodes();
  onTestFailed(() => {
    for (const output of startedNodesOutput()) console.error(output);
  });
});
