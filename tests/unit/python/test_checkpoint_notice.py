# SPDX-License-Identifier: Apache-2.0
"""checkpoint_requested() on one rank: which files count as a notice, and the signal handler
that init() installs."""

import os
import signal

import pytest

from hvdrun.torch import checkpoint_notice


@pytest.fixture
def no_notice(monkeypatch):
    monkeypatch.delenv('HVD_CHECKPOINT_FILE', raising=False)
    monkeypatch.setattr(checkpoint_notice, '_notice_signal', None)
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGUSR1, signal.SIGUSR2)}
    yield monkeypatch
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def make(kind, path, target):
    if kind == 'file':
        open(path, 'w').close()
    elif kind == 'symlink':
        open(target, 'w').close()
        os.symlink(target, path)
    elif kind == 'directory':
        os.mkdir(path)


@pytest.mark.parametrize('kind', ['missing', 'file', 'symlink', 'directory'])
def test_only_a_regular_file_of_this_user_is_a_notice(no_notice, tmp_path, kind):
    path = str(tmp_path / 'notice')
    make(kind, path, str(tmp_path / 'target'))
    no_notice.setenv('HVD_CHECKPOINT_FILE', path)
    expected = kind == 'file' and os.lstat(path).st_uid == os.geteuid()
    assert checkpoint_notice.checkpoint_requested() is expected


@pytest.mark.parametrize('sig', [signal.SIGUSR1, signal.SIGUSR2])
def test_a_signal_is_a_notice_once_the_handler_is_installed(no_notice, sig):
    signal.signal(sig, signal.SIG_DFL)
    checkpoint_notice._install_notice_handlers()
    assert checkpoint_notice.checkpoint_requested() is False
    os.kill(os.getpid(), sig)  # delivered to the main thread before kill() returns to Python
    assert checkpoint_notice.checkpoint_requested() is True


def test_a_handler_of_the_program_is_left_alone(no_notice):
    def own(signum, frame):
        pass
    signal.signal(signal.SIGUSR1, own)
    checkpoint_notice._install_notice_handlers()
    assert signal.getsignal(signal.SIGUSR1) is own
