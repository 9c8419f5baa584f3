# ir
