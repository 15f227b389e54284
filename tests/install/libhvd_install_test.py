#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where setup.py looks for libhvd (python/setup_support/libhvd_install.py), without building:
the explicit setting first, then the install tree around the source, HVDRUN_ROOT and each
CMAKE_PREFIX_PATH entry; the error names every place tried and why it was passed over.
Usage: libhvd_install_test.py SOURCE_DIR"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(sys.argv.pop(1), 'python', 'setup_support'))
import libhvd_install  # noqa: E402


def make_prefix(root, version='9.8.7'):
    for sub in ('include/hvd', 'lib', 'share/hvdrun/python'):
        os.makedirs(os.path.join(root, sub))
    open(os.path.join(root, 'include/hvd/hvd.h'), 'w').close()
    open(os.path.join(root, 'lib/libhvd.so'), 'w').close()
    with open(os.path.join(root, 'include/hvd/build_config.h'), 'w') as f:
        f.write('#pragma once\n#define HVD_VERSION "%s"\n' % version)
    return root


class FindPrefix(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.a = make_prefix(os.path.join(self.tmp.name, 'a'))
        self.b = make_prefix(os.path.join(self.tmp.name, 'b'))
        self.empty = os.path.join(self.tmp.name, 'empty')
        os.makedirs(self.empty)
        self.elsewhere = os.path.join(self.tmp.name, 'src', 'python')

    def tearDown(self):
        self.tmp.cleanup()

    def test_order(self):
        find = libhvd_install.find_prefix
        everything = {'HVDRUN_LIBHVD_PREFIX': self.b, 'HVDRUN_ROOT': self.a,
                      'CMAKE_PREFIX_PATH': self.a}
        self.assertEqual(find(everything, self.elsewhere), self.b)
        self.assertEqual(find({'HVDRUN_ROOT': self.a}, os.path.join(self.b, 'share/hvdrun/python')),
                         self.b)  # the tree around the source beats HVDRUN_ROOT
        self.assertEqual(find({'HVDRUN_ROOT': self.a, 'CMAKE_PREFIX_PATH': self.b},
                              self.elsewhere), self.a)
        # The module file prepends its prefix to CMAKE_PREFIX_PATH: a later entry is found too.
        self.assertEqual(find({'CMAKE_PREFIX_PATH': '%s::%s' % (self.empty, self.b)},
                              self.elsewhere), self.b)

    def test_error_names_every_place(self):
        with self.assertRaises(libhvd_install.LibhvdNotFound) as e:
            libhvd_install.find_prefix({'HVDRUN_ROOT': self.empty,
                                        'CMAKE_PREFIX_PATH': self.empty}, self.elsewhere)
        text = str(e.exception)
        for part in ('HVDRUN_LIBHVD_PREFIX (not set)', 'HVDRUN_ROOT %s (no include/hvd/hvd.h'
                     % self.empty, 'CMAKE_PREFIX_PATH entry %s' % self.empty,
                     'is not in <prefix>/share/hvdrun/python'):
            self.assertIn(part, text)

    def test_version(self):
        self.assertEqual(libhvd_install.version(self.a), '9.8.7')


if __name__ == '__main__':
    unittest.main()
