# tests of ir
