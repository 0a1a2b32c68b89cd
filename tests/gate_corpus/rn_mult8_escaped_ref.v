// reserved-name: an escaped identifier \hdlrl_ref_mult8 (the reference copy's name) as an extra module: Yosys cannot build the equivalence check, the verdict rests on simulation
module mult8 (
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output wire [15:0] p
);
    assign p = a * b;
endmodule

module \hdlrl_ref_mult8  (
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output wire [15:0] p
);
    assign p = 16'd0;
endmodule
