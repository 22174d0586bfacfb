#!/bin/sh
# Kill anywhere, lose nothing: t-resume.sh with Nassau's algorithm and 20 SIGKILLs at random
# moments, each followed by a resume; outputs must be byte-identical to an uninterrupted run.
ALG=nassau RESUME_TEST_STEM=${RESUME_TEST_STEM:-72} RESUME_TEST_ROUNDS=${RESUME_TEST_ROUNDS:-20} exec tests/t-resume.sh
