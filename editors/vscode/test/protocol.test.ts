import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import { REMOTE_UNCONFIRMED, remoteUnconfirmed } from '../src/protocol';

describe('remoteUnconfirmed', () => {
  it('reads the remote of an unconfirmed dry run', () => {
    assert.equal(remoteUnconfirmed({ code: REMOTE_UNCONFIRMED, message: 'x', data: { remote: 'sc://10.1.2.3:15002' } }), 'sc://10.1.2.3:15002');
  });
  it('still asks when the server gives no remote', () => {
    assert.equal(remoteUnconfirmed({ code: REMOTE_UNCONFIRMED }), 'another machine');
  });
  it('leaves every other error alone', () => {
    assert.equal(remoteUnconfirmed({ code: -32600, message: 'bad' }), undefined);
    assert.equal(remoteUnconfirmed(new Error('boom')), undefined);
    assert.equal(remoteUnconfirmed(undefined), undefined);
  });
});
