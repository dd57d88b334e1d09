#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""usage: harness/rstcheck.py FILE.rst...

Parses reStructuredText with docutils and fails on any warning or error,
for the documentation checks of `make check` where sphinx is not at hand.
The kernel's own directives (kernel-doc) are accepted and not expanded.
"""
import sys

from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives


class KernelDoc(Directive):
    """Stands for the kernel's kernel-doc directive."""
    required_arguments = 1
    optional_arguments = 0
    option_spec = {'export': directives.unchanged,
                   'internal': directives.unchanged,
                   'identifiers': directives.unchanged,
                   'functions': directives.unchanged,
                   'doc': directives.unchanged}
    has_content = False

    def run(self):
        return [nodes.paragraph(text='kernel-doc ' + self.arguments[0])]


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    directives.register_directive('kernel-doc', KernelDoc)
    bad = 0
    for path in sys.argv[1:]:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        try:
            publish_doctree(text, source_path=path,
                            settings_overrides={'report_level': 2,
                                                'halt_level': 2,
                                                'warning_stream': sys.stderr})
        except Exception as e:  # docutils raises SystemMessage on halt
            print(f'{path}: {e}', file=sys.stderr)
            bad = 1
    return bad


if __name__ == '__main__':
    sys.exit(main())
