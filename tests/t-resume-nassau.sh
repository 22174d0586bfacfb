#!/bin/sh
# The resume test of t-resume.sh with Nassau's algorithm (its runs are faster: a larger stem).
ALG=nassau RESUME_TEST_STEM=${RESUME_TEST_STEM:-75} exec tests/t-resume.sh
