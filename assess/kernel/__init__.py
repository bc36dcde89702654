"""The kernel every feature stands on.

Model base, errors, structured files, atomic writes, data folders and output helpers; it imports
no feature package.
"""
