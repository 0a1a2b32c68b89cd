module addsub16 (
    input  wire [15:0] a,
    input  wire [15:0] b,
    input  wire        sub,
    output wire [15:0] result,
    output wire        carry_out,
    output wire        overflow
);
    // Subtraction is a + ~b + 1 (two's complement).
    wire [15:0] b_eff = b ^ {16{sub}};

    assign {carry_out, result} = a + b_eff + sub;
    assign overflow = (a[15] == b_eff[15]) && (result[15] != a[15]);
endmodule
