// screen: Icarus-only file tasks $fopenw / $fputc (missing from the refused list) under `ifdef __ICARUS__: the testbench run writes a file
module adder_8bit (
    input  [7:0] a, b,
    input        cin,
    output [7:0] sum,
    output       cout);
    assign {cout, sum} = a + b + cin;
`ifdef __ICARUS__
    integer fd = 0;
    always @(a or b or cin)
        if (fd == 0) begin
            fd = $fopenw("hdlrl_corpus_probe.txt");
            $fputc(8'h41, fd);
        end
`endif
endmodule
