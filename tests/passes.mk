# tests of passes
