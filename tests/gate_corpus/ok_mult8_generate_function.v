// accept: the multiplier as a generate loop of partial products summed by a function; equivalent to the reference
module mult8 (
    input  wire [7:0]  a,
    input  wire [7:0]  b,
    output wire [15:0] p
);
    function automatic [15:0] row_sum(input [127:0] rows);
        integer k;
        begin
            row_sum = 16'd0;
            for (k = 0; k < 8; k = k + 1)
                row_sum = row_sum + rows[k*16 +: 16];
        end
    endfunction

    wire [127:0] rows;
    genvar i;
    generate
        for (i = 0; i < 8; i = i + 1) begin : g_row
            assign rows[i*16 +: 16] = b[i] ? ({8'd0, a} << i) : 16'd0;
        end
    endgenerate
    assign p = row_sum(rows);
endmodule
