// other-x: A_greater and A_less are 'x wherever the reference drives 0; Verilator reads x as 0, the testbench only checks the 1s, equiv_induct models x as 0 ("proven"), and synthesis ties both outputs to 1
module comparator_4bit (
    input  [3:0] A,
    input  [3:0] B,
    output       A_greater,
    output       A_equal,
    output       A_less
);
    assign A_greater = (A > B) ? 1'b1 : 1'bx;
    assign A_equal   = (A == B);
    assign A_less    = (A < B) ? 1'b1 : 1'bx;
endmodule
