// accept: a generate loop of full adders and a bare (unguarded) $display in a combinational block, which synthesis ignores; equivalent to the reference
module adder_8bit (
    input  [7:0] a, b,
    input        cin,
    output [7:0] sum,
    output       cout);
    wire [8:0] c;
    assign c[0] = cin;
    genvar i;
    generate
        for (i = 0; i < 8; i = i + 1) begin : g_bit
            assign sum[i]   = a[i] ^ b[i] ^ c[i];
            assign c[i + 1] = (a[i] & b[i]) | (c[i] & (a[i] ^ b[i]));
        end
    endgenerate
    assign cout = c[8];
    always @* if (a === 8'bx) $display("adder_8bit: a unknown");
endmodule
